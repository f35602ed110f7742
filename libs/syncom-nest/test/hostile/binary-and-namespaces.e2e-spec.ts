import { io, type Socket } from 'socket.io-client';
import { breachOf } from '../../src/gateway/envelope-bounds';
import { DEFAULT_PRE_AUTH_BYTES, packetHeader } from '../../src/gateway/pre-auth';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { startHub, type TestHub } from '../helpers/hub';

/**
 * socket.io decodes every packet of a connection before it looks for a
 * handler: a packet to the root namespace `/`, which socket.io always serves
 * and syncom does not use, was parsed whole whatever its size, and binary
 * attachments (up to ten, each up to maxHttpBufferSize) were buffered on any
 * namespace. A zero-padded attachment count also moved the header past where
 * the gate read it. The gate now bounds packets to namespaces the app does
 * not serve as it bounds its own before hello, refuses binary on every
 * connection, and reads the header to its end. A connect to a namespace
 * nobody serves closes the connection (socket.io closes one that sends a
 * message to a namespace it has not connected).
 */
describe('hostile: other namespaces and binary attachments', () => {
  let hub: TestHub;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    hub = await startHub({ options: { access: 'public' } });
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.disconnect();
    await hub.close();
  });

  /** A raw socket.io client on `nsp` of the hub, connected. */
  async function client(nsp: string): Promise<Socket> {
    const s = io(`http://127.0.0.1:${hub.port}${nsp}`, { transports: ['websocket'], reconnection: false, forceNew: true });
    sockets.push(s);
    await new Promise<void>((resolve, reject) => { s.once('connect', () => resolve()); s.once('connect_error', reject); });
    return s;
  }

  /** Resolves when the hub closes the socket: its socket.io client (a syncom socket is told why first), or the transport. */
  const closed = (s: Socket) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));
  const BY_HUB = ['io server disconnect', 'transport close'];

  /** Writes a raw socket.io packet on the engine.io connection of `s`, to whichever namespace it names. */
  const raw = (s: Socket, packet: string) => (s.io.engine as unknown as { write(data: string): void }).write(packet);

  it('HOST-3: a message over the pre-auth bytes to the root namespace, which syncom does not serve, closes the connection unparsed', async () => {
    const s = await client('/syncom');
    const gone = closed(s);
    raw(s, `2${JSON.stringify(['anything', { pad: 'x'.repeat(DEFAULT_PRE_AUTH_BYTES + 1) }])}`);
    expect(BY_HUB).toContain(await gone);
  });

  it('HOST-3: a connect to a namespace nobody serves, the root namespace included, closes the connection: socket.io would keep that socket, which reaches nothing, for good', async () => {
    for (const nsp of ['/', '/x']) {
      const s = io(`http://127.0.0.1:${hub.port}${nsp}`, { transports: ['websocket'], reconnection: false, forceNew: true });
      sockets.push(s);
      const refused = await new Promise<string>((resolve) => { s.once('connect', () => resolve('connected')); s.once('connect_error', (e) => resolve(e.message)); s.once('disconnect', (r) => resolve(r)); });
      expect(refused).not.toBe('connected');
    }
  });

  it('HOST-3: binary attachments close the connection on the syncom namespace after a hello too, and on the root namespace', async () => {
    const dialer = await socketDialer();
    try {
      await dialer.storage.sync.addNode({ url: hub.url });
      await dialer.storage.sync.sync();
      const greeted = dialer.sockets[0];
      const gone = closed(greeted);
      greeted.emit('syncom.push', { ops: [Buffer.alloc(1024)] });
      expect(BY_HUB).toContain(await gone);
    } finally {
      await dialer.storage.close();
    }
    const s = await client('/syncom');
    const gone = closed(s);
    raw(s, '51-["anything",{"_placeholder":true,"num":0}]');
    expect(BY_HUB).toContain(await gone);
  });

  it('HOST-3: a binary header whose attachment count is zero-padded past 16 characters is read to its namespace and refused', async () => {
    expect(packetHeader('5000000000000000001-/syncom,1["x",{"_placeholder":true,"num":0}]')).toEqual({ nsp: '/syncom', binary: true });
    expect(packetHeader('51-/syncom,["x"]')).toEqual({ nsp: '/syncom', binary: true });
    expect(packetHeader('2/syncom,["x"]')).toEqual({ nsp: '/syncom', binary: false });
    expect(packetHeader('2["x"]')).toEqual({ nsp: '/', binary: false });
    const s = await client('/syncom');
    const gone = closed(s);
    raw(s, `5000000000000000001-/syncom,["x",{"_placeholder":true,"num":0}]`);
    expect(BY_HUB).toContain(await gone);
  });

  it('HOST-3: a node id with a newline is quoted in the hub\'s log, and cut: it cannot forge a log line nor lengthen one', async () => {
    const lines: string[] = [];
    let disconnected!: () => void;
    const gone = new Promise<void>((resolve) => { disconnected = resolve; });
    const take = (m: unknown) => {
      lines.push(String(m));
      if (String(m).startsWith('peer disconnected')) disconnected();
    };
    const logger = { log: take, warn: take, error: take, debug: () => undefined, verbose: () => undefined };
    const logged = await startHub({ options: { access: 'public' }, logger });
    try {
      const socket = await rawSocket(logged.url);
      // The longest node id a hello may name (128 characters), its forged line within the part quoted.
      const node = 'n\n[Nest] 1  - 01/01/2026  LOG [Forged] a line'.padEnd(128, '\u001b[2J');
      expect(await socket.timeout(10_000).emitWithAck('hello', { node, vector: {}, epoch: 'e', schema: null, scopes: ['*'] })).toMatchObject({ ok: true });
      socket.disconnect();
      await gone;
      const line = lines.find((l) => l.startsWith('peer disconnected')) as string;
      expect(line).toContain(`node ${JSON.stringify(node.slice(0, 64))}... (128 characters) (client namespace disconnect)`);
      expect(line).not.toContain(JSON.stringify(node.slice(0, 65)));
      expect(lines.every((l) => !l.includes('\n'))).toBe(true);
    } finally {
      await logged.close();
    }
  });

  it('an envelope holding binary is beyond its bounds at once, without listing a key per byte', () => {
    const b = { maxDepth: 32, maxEntries: 4096 };
    expect(breachOf({ msg: { x: [Buffer.alloc(4 * 1024 * 1024)] } }, b)).toBe('entries');
    expect(breachOf({ msg: new Uint8Array(8) }, b)).toBe('entries');
    expect(breachOf({ msg: new ArrayBuffer(8) }, b)).toBe('entries');
    expect(breachOf({ msg: { x: [1, 2, 3] } }, b)).toBeNull();
  });
});

import type { Socket as ClientSocket } from 'socket.io-client';
import { heldInbound } from '../../src/gateway/engine-bounds';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';
import { until, waitFor } from '../helpers/until';

type RawEngine = { transport: { ws: { _socket: { write(b: Buffer): boolean } } } };

const HELLO = { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

/**
 * Writes on the client's TCP socket the start of a WebSocket text frame that
 * says it weighs `declared` bytes, and `sent` bytes of it: the host's ws
 * receiver buffers them, waiting for the rest, which never comes.
 */
function halfFrame(s: ClientSocket, declared: number, sent: number): void {
  const head = Buffer.alloc(14);
  head[0] = 0x81; // FIN, text
  head[1] = 0x80 | 127; // masked, 64-bit length
  head.writeBigUInt64BE(BigInt(declared), 2);
  head.writeUInt32BE(0, 10); // a mask of zeros leaves the payload as it is
  (s.io.engine as unknown as RawEngine).transport.ws._socket.write(Buffer.concat([head, Buffer.alloc(sent, 0x61)]));
}

/** Every connection's half-received bytes at the hub, as its sweep adds them up. */
function heldAtHub(h: TestHub): number {
  const clients = (h.namespace().server.engine as unknown as { clients: Record<string, Parameters<typeof heldInbound>[0]> }).clients;
  return Object.values(clients).reduce((sum, c) => sum + heldInbound(c), 0);
}

type EngineConn = { on(e: string, f: () => void): void; off(e: string, f: () => void): void; transport: { socket: { _socket: { on(e: 'data', f: () => void): void; off(e: 'data', f: () => void): void } } } };
const connsAt = (h: TestHub) => Object.values((h.namespace().server.engine as unknown as { clients: Record<string, EngineConn> }).clients);

/** Re-checked at every chunk the hub's connections receive and at every close of one. */
function atHub(h: TestHub, check: () => boolean, what: string): Promise<void> {
  return waitFor(check, (retest) => {
    const conns = connsAt(h);
    for (const c of conns) { c.transport.socket._socket.on('data', retest); c.on('close', retest); }
    return () => conns.forEach((c) => { c.transport.socket._socket.off('data', retest); c.off('close', retest); });
  }, what);
}

const closedByHost = (s: ClientSocket) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));

/**
 * What a hub's server holds for clients it knows nothing of: connections,
 * and messages they started and never finished. A hello (on an open hub
 * anyone's) lifts a connection's frame bound to the largest message, so a
 * client could send all of a 16 MiB message but its end and hold it until
 * its ping timed out, about 45 s; 150 connections held 565 MB that way.
 */
describe('hostile: connections and half-sent messages, over every connection together', () => {
  const { sockets, storages, startHub } = gatewayFixture();

  it('HOST-1 HOST-3: past maxConnections a handshake is refused, and taken again once a connection closed', async () => {
    const h = await startHub({ options: { access: 'public', maxConnections: 2 } });
    sockets.push(await rawSocket(h.url), await rawSocket(h.url));
    await expect(rawSocket(h.url)).rejects.toThrow();
    sockets.shift()!.disconnect();
    await atHub(h, () => (h.namespace().server.engine as unknown as { clientsCount: number }).clientsCount < 2, 'a connection closed at the hub');
    const again = await rawSocket(h.url);
    sockets.push(again);
    expect(await again.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
  });

  it('HOST-1 HOST-3: past maxInboundBytes the connections that held half-sent messages longest are closed, largest first, until the rest fit; honest peers go on', async () => {
    const budget = 1024 * 1024;
    const h = await startHub({ options: { access: 'public', maxInboundBytes: budget } });
    const small = await rawSocket(h.url);
    const large = await rawSocket(h.url);
    sockets.push(small, large);
    for (const s of [small, large]) expect(await s.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
    const largeClosed = closedByHost(large);
    let smallClosed = false;
    small.once('disconnect', () => (smallClosed = true));
    // 600 KB and 700 KB of messages declared at 4 MB (under the 16 MiB messages a greeted connection may send).
    halfFrame(small, 4_000_000, 600_000);
    halfFrame(large, 4_000_000, 700_000);
    await atHub(h, () => heldAtHub(h) >= 1_300_000, 'both half frames held at the hub');
    const inbound = h.gateway.inbound!;
    // The first sweep sees them for the first time (an honest message arrives whole within moments); the second closes.
    inbound.sweep();
    inbound.sweep();
    expect(await largeClosed).not.toBe('ping timeout');
    // The rest fits the budget: the smaller holder stays, through further sweeps.
    expect(inbound.sweep()).toBe(0);
    expect(smallClosed).toBe(false);
    expect(heldAtHub(h)).toBeLessThanOrEqual(budget);
    // An honest peer greets and writes meanwhile.
    const dialer = await socketDialer();
    storages.push(dialer.storage);
    const id = await dialer.storage.insert({ honest: true });
    await dialer.storage.sync.addNode({ url: h.url });
    await until(() => h.storage.has(id), [h.storage, dialer.storage], 'the honest write at the hub');
  });

  it('HOST-3: the budget defaults to sixteen of the largest message, at least 64 MiB', async () => {
    const h = await startHub({ options: { access: 'public', limits: { bytesPerPush: 4 * 1024 * 1024 } } });
    expect(h.gateway.inbound!.budget).toBe(16 * (4 * 1024 * 1024 + 64 * 1024));
    const small = await startHub({ options: { access: 'public', limits: { bytesPerPush: 1024 } } });
    expect(small.gateway.inbound!.budget).toBe(64 * 1024 * 1024);
  });
});

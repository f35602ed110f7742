import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { io } from 'socket.io-client';
import type { SyncomError } from 'syncom';
import { createSocketIoLink } from '../../src/link';
import { ConformanceUnit, HELLO } from './conformance-unit';
import { ForwardingHost, socketIoHarness } from './socket-io-harness';

// What the socket.io link does beyond the shared contract: its timeout, the
// first connection, the hub dropping the socket, and the hub giving up on a page's ack.
const host = new ForwardingHost();
beforeAll(() => host.start({ ackTimeout: 300 }));
afterAll(() => host.hub?.close());

describe('socket.io link', () => {
  const disposers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const d of disposers.splice(0)) await d();
  });

  async function harness(timeout?: number) {
    const unit = new ConformanceUnit();
    const h = await socketIoHarness(host, unit, timeout);
    disposers.push(() => h.dispose());
    return { unit, h };
  }

  it('LINK-3 a call the host does not answer in time rejects with LINK_TIMEOUT; the link cycles the socket and is usable again', async () => {
    const { unit, h } = await harness(150);
    const reconnected = new Promise<void>((resolve) => h.link.on('reconnect', () => resolve()));
    const error = (await h.link.call('push', { ops: ['hold'] }).catch((e: unknown) => e)) as SyncomError;
    expect(error).toMatchObject({ code: 'LINK_TIMEOUT' });
    unit.release();
    await reconnected;
    await expect(h.link.call('push', { ops: [1] })).resolves.toMatchObject({ method: 'push' });
  });

  it('LINK-4 a subscription other than changes is refused as the unit would refuse it (404)', async () => {
    const { h } = await harness();
    const error = await new Promise<unknown>((resolve) => h.link.subscribe('other', {}, { onData: () => undefined, onError: resolve }));
    expect(error).toMatchObject({ code: 'UNKNOWN_METHOD', status: 404 });
  });

  it('LINK-6 calls made before the first connection wait for it; the first connect is open, not reconnect', async () => {
    const unit = new ConformanceUnit();
    host.current = unit;
    const socket = io(host.hub!.url, { transports: ['websocket'], forceNew: true, autoConnect: false });
    const link = createSocketIoLink(socket);
    disposers.push(async () => link.close());
    const events: string[] = [];
    for (const e of ['open', 'close', 'reconnect'] as const) link.on(e, () => events.push(e));
    const answer = link.call('hello', HELLO);
    expect(link.connected).toBe(false);
    await expect(answer).resolves.toMatchObject({ method: 'hello' });
    expect(events).toEqual(['open']);
    expect(() => createSocketIoLink(socket, { timeout: 0 })).toThrow(TypeError);
  });

  it('LINK-6 a first connection that cannot be made fails the waiting calls with LINK_DOWN once socket.io gives up', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    for (const options of [{ reconnection: false }, { reconnectionAttempts: 2, reconnectionDelay: 10 }]) {
      const link = createSocketIoLink(io(`http://127.0.0.1:${port}/syncom`, { transports: ['websocket'], forceNew: true, ...options }));
      disposers.push(async () => link.close());
      await expect(link.call('hello', HELLO)).rejects.toMatchObject({ code: 'LINK_DOWN' });
      await expect(link.call('hello', HELLO)).rejects.toMatchObject({ code: 'LINK_DOWN' });
    }
  });

  it('PROTO-12 a socket the host drops is redialed by the link; the feed resumes from its last event id', async () => {
    const { unit, h } = await harness();
    unit.publish('e1', 1);
    const pages: unknown[] = [];
    h.link.subscribe('changes', {}, { onData: (_v, id) => void (pages.push(id), unit.signal.notify()) });
    await unit.signal.until(() => pages.length === 1, 'e1');
    const reconnected = new Promise<void>((resolve) => h.link.on('reconnect', () => resolve()));
    const [server] = await host.hub!.namespace().fetchSockets();
    server.disconnect(true);
    await reconnected;
    unit.publish('e2', 2);
    await unit.signal.until(() => pages.length === 2, 'e2');
    expect(unit.subs.map((s) => s.lastEventId)).toEqual([undefined, 'e1']);
  });

  it('PROTO-12 a page not acked within the ackTimeout ends the feed at the host; the link resumes once the page is taken', async () => {
    const { unit, h } = await harness();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const taken: string[] = [];
    let release: () => void = () => undefined;
    h.link.subscribe('changes', {}, {
      onData: (_v, id) => {
        taken.push(id as string);
        unit.signal.notify();
        if (id === 'e1' && taken.length === 1) return new Promise<void>((resolve) => (release = resolve));
      },
    });
    await unit.signal.until(() => unit.subs.length === 1 && unit.subs[0].closed, 'the host giving up on the ack');
    release();
    await unit.signal.until(() => taken.length === 2, 'e2 on the resumed feed');
    expect(taken).toEqual(['e1', 'e2']);
    expect(unit.subs.map((s) => s.lastEventId)).toEqual([undefined, 'e1']);
  });
});

import type { Socket as ServerSocket } from 'socket.io';
import type { Socket as ClientSocket } from 'socket.io-client';
import { type Storage, unpackOps } from 'syncom';
import { peerOf, SocketPeer } from '../../src/gateway/socket-peer';
import { pagesAwaited } from '../../src/gateway/gateway-feeds';
import type { PageMessage } from '../../src/link';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';
import { Signal, until, waitFor } from '../helpers/until';

/**
 * Issue 6 point 3 over socket.io: changes pages are acknowledged on socket.io's
 * ack callbacks, and the gateway has at most maxInFlightFrames of them out to
 * a socket; a client that holds its acks pauses the hub's feed, whose pages
 * stay within pageSize and pageBytes.
 */

const HELLO = { node: 'raw-node', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
const OK = { ok: true, value: null };
const utf8 = (x: unknown) => Buffer.byteLength(JSON.stringify(x));

/** The hub's side of its one socket. */
function serverSocket(hub: TestHub): ServerSocket {
  const [socket] = [...hub.namespace().sockets.values()];
  return socket;
}

/** Page acks the gateway waits for on a socket: what it holds for that peer (its feeds' pages out, SocketPeer's pending asks). */
const awaited = (socket: ServerSocket) => pagesAwaited(peerOf(socket)) + (peerOf(socket) as unknown as { waiting: Set<unknown> }).waiting.size;

/**
 * A round trip on the socket: the hub answers it after anything its feed would
 * have sent by then, and one socket delivers in order, so a page the feed had
 * sent arrives before the answer.
 */
const barrier = (socket: ClientSocket) => socket.timeout(5000).emitWithAck('unsubscribe', { sub: 'none' });

/** A raw client whose page acks the test hands out. */
function holdingClient(socket: ClientSocket) {
  const signal = new Signal();
  const pages: PageMessage[] = [];
  const acks: Array<(a: unknown) => void> = [];
  let acked = 0;
  let auto = false;
  let maxOut = 0;
  socket.on('changes:data', (m: PageMessage, ack: (a: unknown) => void) => {
    pages.push(m);
    acks.push(ack);
    maxOut = Math.max(maxOut, pages.length - acked);
    if (auto) release(pages.length);
    signal.notify();
  });
  function release(upTo: number) {
    for (; acked < upTo; acked++) acks[acked](OK);
  }
  return {
    pages, signal,
    get maxOut() { return maxOut; },
    release,
    /** Acks everything, now and as it comes. */
    flow() { auto = true; release(pages.length); },
  };
}

describe('issue 6.3: the send window over socket.io', () => {
  const { storages, sockets, startHub } = gatewayFixture();

  async function subscribed(hub: TestHub) {
    const socket = await rawSocket(hub.url);
    sockets.push(socket);
    await socket.timeout(5000).emitWithAck('hello', HELLO);
    const client = holdingClient(socket);
    const from = hub.storage.replica.eventId(0);
    await expect(socket.timeout(5000).emitWithAck('changes', { sub: 'w', lastEventId: from })).resolves.toEqual(OK);
    return { socket, client };
  }

  it('issue 6.3 PROTO-6 HOST-4: a client that holds its acks has exactly maxInFlightFrames pages from the hub, then none; each ack lets one more out; then every op comes in order, each page within pageSize and pageBytes', async () => {
    const hub = await startHub({ options: { pageSize: 5, pageBytes: 2000 } });
    for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 5 }, (_, j) => hub.storage.insert({ i, j, pad: 'x'.repeat(j * 100) })));
    const { socket, client } = await subscribed(hub);
    await client.signal.until(() => client.pages.length === 16, '16 pages');
    await barrier(socket);
    expect(client.pages).toHaveLength(16);
    // What the hub holds for this peer: 16 pages awaiting their acks, no more.
    expect(awaited(serverSocket(hub))).toBe(16);
    client.release(1);
    await client.signal.until(() => client.pages.length === 17, 'the 17th page');
    await barrier(socket);
    expect(client.pages).toHaveLength(17);
    expect(awaited(serverSocket(hub))).toBe(16);
    client.flow();
    const ops = () => client.pages.flatMap((p) => (p.value as { ops: unknown[] }).ops);
    await client.signal.until(() => ops().length === 200, 'every op');
    expect(client.maxOut).toBe(16);
    for (const p of client.pages) {
      const page = p.value as { ops: unknown[] };
      expect(page.ops.length).toBeLessThanOrEqual(5);
      if (page.ops.length > 1) expect(utf8(page.ops)).toBeLessThanOrEqual(2000);
    }
    // In the hub's log order, each page's prev the event id of the one before.
    const unpacked = unpackOps(ops());
    expect(unpacked.malformed).toBe(0);
    expect(unpacked.ops.map((op) => op.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const prevs = client.pages.map((p) => (p.value as { prev: string }).prev);
    expect(prevs.slice(1)).toEqual(client.pages.slice(0, -1).map((p) => p.eventId));
    const server = serverSocket(hub);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await waitFor(async () => (await turn(), awaited(server) === 0), (retest) => {
      server.conn.on('packet', retest);
      return () => server.conn.off('packet', retest);
    }, 'the last acks');
  });

  it('issue 6.3 PROTO-12: a socket that closes with the window full releases it: the feed ends at the hub and no ack is awaited any more', async () => {
    const hub = await startHub({ options: { pageSize: 5 } });
    for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 5 }, (_, j) => hub.storage.insert({ i, j })));
    const { socket, client } = await subscribed(hub);
    await client.signal.until(() => client.pages.length === 16, '16 pages');
    const server = serverSocket(hub);
    expect([awaited(server), hub.storage.sync.hosted().length]).toEqual([16, 1]);
    const gone = new Promise<void>((resolve) => server.once('disconnect', () => setImmediate(resolve)));
    socket.disconnect();
    await gone;
    expect([awaited(server), hub.storage.sync.hosted().length]).toEqual([0, 0]);
  });

  it('issue 6.3: a client that acks nothing with a full window of pages out hears one ACK_TIMEOUT for the feed, which ends at the hub', async () => {
    const hub = await startHub({ options: { pageSize: 5, ackTimeout: 300 } });
    for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 5 }, (_, j) => hub.storage.insert({ i, j })));
    const { socket, client } = await subscribed(hub);
    const errors: unknown[] = [];
    const timedOut = new Promise<void>((resolve) => socket.on('changes:error', (m: unknown) => (errors.push(m), resolve())));
    await client.signal.until(() => client.pages.length === 16, '16 pages');
    await timedOut;
    // One error for the feed, not one per page out.
    await barrier(socket);
    expect(errors).toEqual([{ sub: 'w', error: { code: 'ACK_TIMEOUT', status: 408, message: expect.any(String) } }]);
    expect(hub.storage.sync.hosted()).toEqual([]);
    expect(client.pages).toHaveLength(16);
  });

  it('issue 6.3 PROTO-6 LOG-7: a slow storage dialer over socket.io (its beforeApply waits) holds the hub at 16 pages out; released, it converges', async () => {
    const hub = await startHub({ options: { pageSize: 5 } });
    let open = () => undefined as void;
    const slow = new Promise<void>((resolve) => (open = resolve));
    const a = await socketDialer({ hooks: { beforeApply: () => slow.then(() => true) } });
    storages.push(a.storage);
    const boots: unknown[] = [];
    a.storage.sync.on('bootstrap', (e) => boots.push(e));
    await a.storage.sync.addNode({ url: hub.url });
    await until(() => boots.length === 1 && a.storage.sync.peers()[0]?.subscribed === true, [a.storage], 'the first bootstrap');
    const server = serverSocket(hub);
    const signal = new Signal();
    let pages = 0;
    server.onAnyOutgoing((event: string) => {
      if (event === 'changes:data') pages++;
      signal.notify();
    });
    for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 5 }, (_, j) => hub.storage.insert({ i, j })));
    await signal.until(() => pages === 16, '16 pages');
    await barrier(a.sockets[0]);
    expect([pages, awaited(server)]).toEqual([16, 16]);
    open();
    const rows = async (s: Storage) => (await s.list()).map((r) => [r.id, r.data]);
    await until(async () => (await rows(a.storage)).length === 200, [a.storage, hub.storage], 'the dialer caught up');
    expect(pages).toBe(40);
    expect(await rows(a.storage)).toEqual(await rows(hub.storage));
  });

  it('issue 6.3: a page\'s ack timeout starts once the page before it was acked (SocketPeer.ask `after`): the client takes pages one by one', async () => {
    jest.useFakeTimers();
    try {
      const socket = { emit: () => undefined, data: {} } as unknown as ServerSocket;
      const peer = new SocketPeer(socket);
      let ackBefore = () => undefined as void;
      const before = new Promise<void>((resolve) => (ackBefore = resolve));
      let outcome: string | undefined;
      void peer.ask('changes:data', {}, 100, before).then(() => (outcome = 'acked'), (e: { code: string }) => (outcome = e.code));
      const turns = async () => { for (let i = 0; i < 5; i++) await Promise.resolve(); };
      jest.advanceTimersByTime(1000);
      await turns();
      expect(outcome).toBeUndefined();
      ackBefore();
      await turns();
      jest.advanceTimersByTime(99);
      await turns();
      expect(outcome).toBeUndefined();
      jest.advanceTimersByTime(1);
      await turns();
      expect(outcome).toBe('ACK_TIMEOUT');
    } finally {
      jest.useRealTimers();
    }
  });
});

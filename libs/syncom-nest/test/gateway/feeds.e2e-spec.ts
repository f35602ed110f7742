import type { Socket as ClientSocket } from 'socket.io-client';
import type { PageMessage } from '../../src/link';
import { rawSocket } from '../helpers/dialer';
import { startHub, type TestHub } from '../helpers/hub';

const HELLO = { node: 'raw-node', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

describe('changes feeds at the socket.io gateway', () => {
  let hub: TestHub;
  let socket: ClientSocket;

  beforeEach(async () => {
    // A send window of one page: each page waits for the ack of the one before (issue 6.3 has the wider window).
    hub = await startHub({ options: { ackTimeout: 200, maxInFlightFrames: 1 } });
    socket = await rawSocket(hub.url);
    await socket.timeout(5000).emitWithAck('hello', HELLO);
  });

  afterEach(async () => {
    socket.disconnect();
    await hub.close();
  });

  /** The hub log's newest event id: a feed from there is live, no bootstrap. */
  const head = () => hub.storage.replica.eventId(hub.storage.replica.head);

  it('PROTO-6 HOST-4 pages carry their event id; the ack lets the next page go; the cursor follows', async () => {
    const from = head();
    const pages: PageMessage[] = [];
    const acks: Array<(a: unknown) => void> = [];
    let arrived: () => void = () => undefined;
    socket.on('changes:data', (m: PageMessage, ack: (a: unknown) => void) => {
      pages.push(m);
      acks.push(ack);
      arrived();
    });
    const next = () => new Promise<void>((resolve) => (arrived = resolve));
    let first = next();
    await expect(socket.timeout(5000).emitWithAck('changes', { sub: 'a', lastEventId: from })).resolves.toEqual({ ok: true, value: null });
    await hub.storage.insert({ n: 1 });
    await first;
    expect(pages[0]).toMatchObject({ sub: 'a', eventId: expect.stringMatching(/\./), value: { ops: [expect.any(Array)] } });
    first = next();
    await hub.storage.insert({ n: 2 });
    // The second op is in the log, but its page waits for the first page's ack (backpressure).
    expect(pages).toHaveLength(1);
    acks[0]({ ok: true, value: null });
    await first;
    expect(pages.map((p) => p.eventId)).toEqual([pages[0].eventId, head()]);
    acks[1]({ ok: true, value: null });
  });

  it('a page not acked within ackTimeout ends the feed: the client hears ACK_TIMEOUT (408) and hosted() drops it', async () => {
    const timedOut = new Promise<unknown>((resolve) => socket.once('changes:error', resolve));
    socket.on('changes:data', () => undefined);
    await socket.timeout(5000).emitWithAck('changes', { sub: 'slow', lastEventId: head() });
    expect(hub.storage.sync.hosted()).toHaveLength(1);
    await hub.storage.insert({ n: 1 });
    expect(await timedOut).toEqual({ sub: 'slow', error: { code: 'ACK_TIMEOUT', status: 408, message: expect.any(String) } });
    expect(hub.storage.sync.hosted()).toEqual([]);
  });

  it('a fresh subscriber is told to bootstrap; a second changes with the same sub id replaces the first', async () => {
    const bootstrap = new Promise<PageMessage>((resolve) => socket.once('changes:data', (m: PageMessage, ack: (a: unknown) => void) => (ack({ ok: true }), resolve(m))));
    await socket.timeout(5000).emitWithAck('changes', { sub: 'b' });
    expect(await bootstrap).toEqual({ sub: 'b', value: { bootstrap: true, reason: 'floor' } });
    await socket.timeout(5000).emitWithAck('changes', { sub: 'b', lastEventId: head() });
    await socket.timeout(5000).emitWithAck('changes', { sub: 'b', lastEventId: head() });
    expect(hub.storage.sync.hosted()).toHaveLength(1);
  });
});

import type { Socket as ServerSocket } from 'socket.io';
import type { Socket as ClientSocket } from 'socket.io-client';
import { pagesAwaited } from '../../src/gateway/gateway-feeds';
import { peerOf } from '../../src/gateway/socket-peer';
import type { PageMessage } from '../../src/link';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';
import { Signal } from '../helpers/until';

/**
 * Cumulative page acks in the hostile catalogue: the ack of a changes page
 * answers every earlier page of its feed, so a client may ack only its latest
 * page. A client that acks pages it was never sent, acks twice, acks out of
 * order, acks one feed's page for another, or never acks, is granted nothing
 * beyond the pages it was sent: the window (maxInFlightFrames) holds, and
 * the hub keeps no ack callback for a page an ack covered.
 */

const HELLO = { node: 'hostile-acker', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
const OK = { ok: true, value: null };
const WINDOW = 4;

/** The hub's side of its one socket. */
const serverSocket = (hub: TestHub): ServerSocket => [...hub.namespace().sockets.values()][0];

/** The ack callbacks the hub's socket holds (socket.io's own table). */
const callbacks = (s: ServerSocket) => (s as unknown as { acks: Map<number, unknown> }).acks.size;

/** A round trip: a page the hub had sent by then arrives before its answer. */
const barrier = (socket: ClientSocket) => socket.timeout(5000).emitWithAck('unsubscribe', { sub: 'none' });

/** Sends a socket.io ack packet for any id, as a hostile client can (socket.io-client's packet(), which sets the namespace). */
const forgeAck = (socket: ClientSocket, id: number) => (socket as unknown as { packet(p: object): void }).packet({ type: 3, id, data: [OK] });

/** A raw client that records its pages with their ack callbacks and the ack ids the hub gave them; it acks only when told. */
function holder(socket: ClientSocket) {
  const signal = new Signal();
  const pages: { m: PageMessage; ack: (a: unknown) => void }[] = [];
  socket.on('changes:data', (m: PageMessage, ack: (a: unknown) => void) => {
    pages.push({ m, ack });
    signal.notify();
  });
  const of = (sub: string) => pages.filter((p) => p.m.sub === sub);
  return { pages, signal, of, until: (n: number, what: string) => signal.until(() => pages.length >= n, what) };
}

describe('hostile: cumulative page acks grant nothing beyond the pages sent', () => {
  const { sockets, startHub } = gatewayFixture();

  async function subscribed(subs: string[], options: object = {}, outgoing = false) {
    const hub = await startHub({ options: { pageSize: 1, maxInFlightFrames: WINDOW, ...options } });
    await Promise.all(Array.from({ length: 24 }, (_, i) => hub.storage.insert({ i })));
    const socket = await rawSocket(hub.url);
    sockets.push(socket);
    // An outgoing listener on the hub's socket: its pages go through socket.emit, not the pre-encoded path.
    if (outgoing) serverSocket(hub).onAnyOutgoing(() => undefined);
    const hello = (await socket.timeout(5000).emitWithAck('hello', HELLO)) as { ok: boolean; pageAcks?: unknown };
    const client = holder(socket);
    const from = hub.storage.replica.eventId(0);
    for (const sub of subs) await expect(socket.timeout(5000).emitWithAck('changes', { sub, lastEventId: from })).resolves.toEqual(OK);
    return { hub, socket, client, hello, server: serverSocket(hub) };
  }

  it('PROTO-6 HOST-4 the hello answer offers cumulative acks with the window; one ack of the latest page frees every page before it, and the hub forgets their callbacks', async () => {
    const { socket, client, hello, server } = await subscribed(['w']);
    expect(hello).toMatchObject({ ok: true, pageAcks: { window: WINDOW, ackTimeout: expect.any(Number) } });
    await client.until(WINDOW, 'a full window');
    await barrier(socket);
    expect([client.pages.length, pagesAwaited(peerOf(server)), callbacks(server)]).toEqual([WINDOW, WINDOW, WINDOW]);
    client.pages[WINDOW - 1].ack(OK);
    await client.until(2 * WINDOW, 'the next window');
    await barrier(socket);
    expect([client.pages.length, pagesAwaited(peerOf(server)), callbacks(server)]).toEqual([2 * WINDOW, WINDOW, WINDOW]);
  });

  it('PROTO-6 HOST-4 pages sent through socket.emit (an outgoing listener on the socket) are acked cumulatively too, their callbacks forgotten', async () => {
    const { socket, client, server } = await subscribed(['w'], {}, true);
    await client.until(WINDOW, 'a full window');
    client.pages[WINDOW - 1].ack(OK);
    await client.until(2 * WINDOW, 'the next window');
    await barrier(socket);
    expect([client.pages.length, pagesAwaited(peerOf(server)), callbacks(server)]).toEqual([2 * WINDOW, WINDOW, WINDOW]);
  });

  it('PROTO-6 HOST-4 acks of ids never sent, a second ack, and an ack of a page an ack already covered (out of order) free nothing', async () => {
    const { socket, client, server } = await subscribed(['w']);
    await client.until(WINDOW, 'a full window');
    client.pages[1].ack(OK);
    await client.until(WINDOW + 2, 'two more pages');
    await barrier(socket);
    expect(client.pages.length).toBe(WINDOW + 2);
    // Replays and forgeries: the same ack again, the pages it covered (their callbacks and their ids), ids far off and just past the last one sent.
    const out = [...(server as unknown as { acks: Map<number, unknown> }).acks.keys()];
    expect(out).toHaveLength(WINDOW);
    client.pages[1].ack(OK);
    client.pages[0].ack(OK);
    for (const id of [Math.min(...out) - 1, Math.min(...out) - 2, Math.max(...out) + 1, 1_000_000, 2 ** 31]) forgeAck(socket, id);
    await barrier(socket);
    await barrier(socket);
    expect([client.pages.length, pagesAwaited(peerOf(server)), callbacks(server)]).toEqual([WINDOW + 2, WINDOW, WINDOW]);
    // Ops in log order all the same once it acks honestly.
    client.pages[client.pages.length - 1].ack(OK);
    await client.until(WINDOW + 6, 'the window after an honest ack');
  });

  it('PROTO-6 HOST-4 an ack of one feed\'s page frees none of another feed\'s pages on the same socket', async () => {
    const { socket, client, server } = await subscribed(['a', 'b']);
    await client.until(WINDOW, 'a full window');
    await barrier(socket);
    const [a, b] = [client.of('a'), client.of('b')];
    expect(a.length + b.length).toBe(WINDOW);
    expect(a.length).toBeGreaterThan(0);
    a[a.length - 1].ack(OK);
    await client.until(WINDOW + a.length, 'as many pages as a\'s ack freed');
    await barrier(socket);
    expect([client.pages.length, pagesAwaited(peerOf(server))]).toEqual([WINDOW + a.length, WINDOW]);
    // b's pages sent before the ack are all still awaited: none was answered by a's ack.
    expect(client.of('b').length).toBeGreaterThanOrEqual(b.length);
  });

  it('PROTO-12 a client that acks an old page and never the later ones hears one ACK_TIMEOUT; the hub lets go of every page and its callback, and a late ack frees nothing', async () => {
    const { socket, client, server } = await subscribed(['w'], { ackTimeout: 300 });
    const errors: unknown[] = [];
    const timedOut = new Promise<void>((resolve) => socket.on('changes:error', (m: unknown) => (errors.push(m), resolve())));
    await client.until(WINDOW, 'a full window');
    client.pages[0].ack(OK);
    await timedOut;
    await barrier(socket);
    expect(errors).toEqual([{ sub: 'w', error: { code: 'ACK_TIMEOUT', status: 408, message: expect.any(String) } }]);
    expect([pagesAwaited(peerOf(server)), callbacks(server)]).toEqual([0, 0]);
    const sent = client.pages.length;
    client.pages[sent - 1].ack(OK);
    await barrier(socket);
    expect(client.pages.length).toBe(sent);
  });
});

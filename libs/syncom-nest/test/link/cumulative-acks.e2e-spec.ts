import type { Socket as ServerSocket } from 'socket.io';
import { io } from 'socket.io-client';
import { pagesAwaited } from '../../src/gateway/gateway-feeds';
import { peerOf } from '../../src/gateway/socket-peer';
import { createSocketIoLink } from '../../src/link';
import { gatewayFixture } from '../helpers/fixture';
import { Signal } from '../helpers/until';

/**
 * The socket.io link with a hub that offers cumulative page acks: a feed
 * whose pages queue up acks only its latest page taken (at half the window,
 * and when nothing more is left to take), and still takes every page in order.
 */

const HELLO = { node: 'acking-link', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

describe('socket.io link: cumulative page acks', () => {
  const { sockets, startHub } = gatewayFixture();

  /** A hub holding 40 records, one per page, a window of `frames`; a link greeted on it, and the hub's side of its socket. */
  async function greeted(frames: number) {
    const hub = await startHub({ options: { pageSize: 1, maxInFlightFrames: frames } });
    await Promise.all(Array.from({ length: 40 }, (_, i) => hub.storage.insert({ i })));
    const socket = io(hub.url, { transports: ['websocket'], forceNew: true });
    sockets.push(socket);
    const link = createSocketIoLink(socket, { timeout: 10_000 });
    await link.call('hello', HELLO);
    const server = [...hub.namespace().sockets.values()][0] as ServerSocket;
    return { hub, socket, link, server };
  }

  it('PROTO-6 HOST-4 pages that queue behind a slow subscriber are acked a few at a time, every page taken in order', async () => {
    const { hub, socket, link, server } = await greeted(8);
    let acks = 0;
    server.conn.on('packet', (p: { data?: unknown }) => void (typeof p.data === 'string' && p.data.startsWith('3') && acks++));
    const signal = new Signal();
    let arrived = 0;
    socket.on('changes:data', () => (arrived++, signal.notify()));
    const taken: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    link.subscribe('changes', {}, {
      lastEventId: hub.storage.replica.eventId(0),
      onData: async (_value, eventId) => {
        await gate;
        taken.push(eventId as string);
        signal.notify();
      },
    });
    // The first page is held by the subscriber: the window fills, and nothing is acked meanwhile.
    await signal.until(() => arrived === 8, 'a full window');
    expect(acks).toBe(0);
    open();
    await signal.until(() => taken.length === 40, 'every page');
    const expected = Array.from({ length: 40 }, (_, i) => hub.storage.replica.eventId(i + 1));
    expect(taken).toEqual(expected);
    await new Promise<void>((resolve) => socket.timeout(5000).emit('unsubscribe', { sub: 'none' }, () => resolve()));
    // 40 pages, a window of 8: an ack per 4 pages taken at most, far fewer than one a page.
    expect(acks).toBeGreaterThanOrEqual(10);
    expect(acks).toBeLessThan(40);
    link.close();
  });

  it('PROTO-6 HOST-4 a subscriber that takes each page at once still acks a few pages at a time: the hub marks them `more`', async () => {
    const { hub, link, server } = await greeted(16);
    const signal = new Signal();
    let acks = 0;
    server.conn.on('packet', (p: { data?: unknown }) => void (typeof p.data === 'string' && p.data.startsWith('3') && (acks++, setImmediate(() => signal.notify()))));
    const taken: string[] = [];
    link.subscribe('changes', {}, {
      lastEventId: hub.storage.replica.eventId(0),
      onData: (_value, eventId) => void (taken.push(eventId as string), signal.notify()),
    });
    await signal.until(() => taken.length === 40, 'every page');
    expect(taken).toEqual(Array.from({ length: 40 }, (_, i) => hub.storage.replica.eventId(i + 1)));
    // The last page (no `more`) is acked at once: the hub reads it and holds nothing.
    await signal.until(() => pagesAwaited(peerOf(server)) === 0, 'the last ack');
    // 40 pages, a window of 16: at most one ack per page, most pages answered by a later one.
    expect(acks).toBeLessThan(20);
    link.close();
  });
});

import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { createSocketIoLink, type SocketIoLink } from '../../src/link';
import { Signal } from '../helpers/until';

/**
 * A changes page's `more` from a host that does not keep its word: the
 * socket.io link holds the ack of a page marked `more` only until half the
 * host's window is taken or a timer (a tenth of its ackTimeout) runs out, so
 * a host that says `more` and sends nothing, or fills its window with pages
 * marked so, never stalls the dialer, and the dialer never lets its taken
 * pages fill the window unacked.
 */

const OK = { ok: true, value: null };
const HELLO_VALUE = { node: 'fake-host', vector: {}, epoch: 'e', floor: 0, schema: null, version: 1, versions: [1], caps: [] };

interface FakeHost {
  url: string;
  /** The dialer's side of the host: its socket, once connected, and the sub of its feed, once opened. */
  ready: Promise<{ socket: ServerSocket; sub: string }>;
  close(): Promise<void>;
}

/** A socket.io host that answers hello with the offer `pageAcks` and opens any feed; pages are the test's to send. */
async function fakeHost(pageAcks: { window: number; ackTimeout: number }): Promise<FakeHost> {
  const http: HttpServer = createServer();
  const server = new Server(http, { transports: ['websocket'] });
  const ready = new Promise<{ socket: ServerSocket; sub: string }>((resolve) => {
    server.of('/syncom').on('connection', (socket) => {
      socket.on('hello', (_m: unknown, ack: (a: unknown) => void) => ack({ ok: true, value: HELLO_VALUE, pageAcks }));
      socket.on('changes', (m: { sub: string }, ack: (a: unknown) => void) => {
        ack(OK);
        resolve({ socket, sub: m.sub });
      });
      socket.on('unsubscribe', (_m: unknown, ack: (a: unknown) => void) => ack?.(OK));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/syncom`;
  return { url, ready, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('hostile: a host\'s `more` holds the dialer\'s acks no longer than the timer or half the window', () => {
  let host: FakeHost | undefined;
  let socket: ClientSocket | undefined;
  let link: SocketIoLink | undefined;
  afterEach(async () => {
    link?.close();
    socket?.disconnect();
    await host?.close();
    host = socket = link = undefined;
  });

  /** A link to a fake host, greeted, with one feed open; `taken` records the pages its subscriber took. */
  async function feed(pageAcks: { window: number; ackTimeout: number }) {
    host = await fakeHost(pageAcks);
    socket = io(host.url, { transports: ['websocket'], forceNew: true, reconnection: false });
    link = createSocketIoLink(socket, { timeout: 10_000 });
    await link.call('hello', { node: 'dialer', vector: {}, epoch: 'd', schema: null, scopes: ['*'] });
    const taken: number[] = [];
    const signal = new Signal();
    link.subscribe('changes', {}, { onData: (value) => void (taken.push((value as { n: number }).n), signal.notify()) });
    const { socket: server, sub } = await host.ready;
    const acked: number[] = [];
    /** Sends page n, marked `more`; its ack is recorded by n. */
    const send = (n: number) => server.emit('changes:data', { sub, more: true, value: { n }, eventId: `e:${n}` }, () => (acked.push(n), signal.notify()));
    return { taken, acked, signal, send };
  }

  it('PROTO-6 PROTO-12 a host that says `more` and sends nothing gets the ack of the last page taken once the timer runs out', async () => {
    // An ackTimeout of 100 ms: the link holds an ack 10 ms at most.
    const { acked, signal, send, taken } = await feed({ window: 16, ackTimeout: 100 });
    send(0);
    send(1);
    await signal.until(() => acked.includes(1), 'the held ack of the last page');
    expect(taken).toEqual([0, 1]);
    expect(acked[acked.length - 1]).toBe(1);
  });

  it('PROTO-6 HOST-4 a host that fills its window with pages marked `more` is acked at every half window: the dialer never holds a full window', async () => {
    // An ackTimeout of 10 minutes: only half the window makes the link ack here (its timer would wait a second).
    const { acked, signal, send, taken } = await feed({ window: 8, ackTimeout: 600_000 });
    for (let n = 0; n < 8; n++) send(n);
    await signal.until(() => acked.length >= 2, 'two acks');
    expect(taken).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(acked).toEqual([3, 7]);
  });
});

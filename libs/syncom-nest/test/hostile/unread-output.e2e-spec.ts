import { request } from 'node:http';
import WebSocket from 'ws';
import type { Socket as ClientSocket } from 'socket.io-client';
import { DEFAULT_CONNECTION_IN_FLIGHT_BYTES } from 'syncom';
import { connectionUnread } from '../../src/gateway/unread-bytes';
import { PRE_AUTH_UNREAD_BYTES } from '../../src/gateway/pre-auth';
import { REFUSALS_UNREAD_BYTES } from '../../src/gateway/syncom-exception.filter';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';

type PausableEngine = { transport: { ws: { _socket: { pause(): void } } } };

/** The client stops reading its socket: what the host sends waits in the host's buffers. */
const stopReading = (s: ClientSocket) => (s.io.engine as unknown as PausableEngine).transport.ws._socket.pause();

/** What closedByHost watches: the host's close of a client, and the packets the host took from it so far. */
interface Watched {
  /** Resolves when the host closes the client's socket, with the most its connection held unsent at any packet. */
  closed: Promise<number>;
  /** The packets the host took from the client so far. */
  seen(): number;
}

/**
 * Watches for the host closing the socket of this client, with the most
 * its connection held unsent at any packet the host took from it (sampled
 * at each of its packets, as the gate sees them). Closed by the gate, not by
 * socket.io's ping timeout 45 s on, which is what became of such a client.
 */
function closedByHost(h: TestHub, client: ClientSocket): Watched {
  const socket = h.namespace().sockets.get(client.id!)!;
  const conn = socket.conn as unknown as Parameters<typeof connectionUnread>[0] & { on(e: 'packet', f: () => void): void };
  let most = 0;
  let seen = 0;
  conn.on('packet', () => {
    seen++;
    most = Math.max(most, connectionUnread(conn));
  });
  const closed = new Promise<string>((resolve) => socket.once('disconnect', (r) => resolve(r))).then((reason) => {
    expect(reason).not.toBe('ping timeout');
    return most;
  });
  return { closed, seen: () => seen };
}

/**
 * Fills the kernel's socket buffers between the host and a client that
 * stopped reading with host messages of `chunk` bytes, until the host's
 * WebSocket holds one unsent: from then on what the host sends waits in its
 * own buffers, the state the gate bounds. Some 4 MB of small answers did
 * the same (100,000 calls, most of this file's time); at most one chunk is
 * left unsent here, which the tests' byte bounds allow for.
 */
async function fillSocketBuffers(h: TestHub, client: ClientSocket, chunk: number): Promise<void> {
  const socket = h.namespace().sockets.get(client.id!)!;
  const transport = (socket.conn as unknown as { transport: { writable: boolean } }).transport;
  const filler = 'x'.repeat(chunk);
  // A write the kernel took whole has its callback run within the turn; one it did not keeps the transport unwritable.
  while (transport.writable) {
    socket.emit('filler', filler);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Sends with `send` in batches, each once the host took the last, until the
 * host closes the connection or `most` were sent: only as many as the bound
 * needs (the client's own queue of all of them cost as much as the host's
 * work).
 */
async function sendUntilClosed(watched: Watched, send: () => void, most: number): Promise<number> {
  let open = true;
  const stop = () => (open = false);
  void watched.closed.then(stop, stop);
  let sent = 0;
  while (open && sent < most) {
    for (let i = 0; i < 500; i++) send();
    sent += 500;
    while (open && watched.seen() < sent) await new Promise((resolve) => setImmediate(resolve));
  }
  return watched.closed;
}

/**
 * A client that sends small messages and reads none of the answers: every
 * answer, a refusal included, is queued on the host whether or not it is
 * read. One without a token sending five-byte connects to a namespace
 * nobody serves took a hub from 199 MB to 1,145 MB in 20 s; a token holder
 * flooding calls the READ_BACKLOG bound refused had the refusals queued.
 */
describe('hostile: a client that never reads what the host answers', () => {
  const { sockets, startHub } = gatewayFixture();

  it('HOST-1 HOST-3: before a hello, a connection holding more than its pre-auth share unsent is closed at its next packet', async () => {
    const h = await startHub({ options: { access: 'public' } });
    const s = await rawSocket(h.url);
    sockets.push(s);
    const watched = closedByHost(h, s);
    stopReading(s);
    await fillSocketBuffers(h, s, 16 * 1024);
    // Each push before a hello is refused 428 (some 150 bytes an answer), queued on the host: 60,000 of them
    // would queue 9 MB, past what the kernel's socket buffers take had they not been full.
    const most = await sendUntilClosed(watched, () => s.emit('push', { ops: [] }, () => undefined), 60_000);
    // Past the bound by what one read of the client's packets had answered (some hundreds of refusals).
    expect(most).toBeLessThanOrEqual(PRE_AUTH_UNREAD_BYTES + 256 * 1024);
  });

  it('HOST-6: a greeted connection that reads nothing is closed once its refusals pass its frame budget and a thousand more', async () => {
    const perConnection = 64 * 1024;
    const h = await startHub({ options: { access: 'public', maxConnectionInFlightBytes: perConnection } });
    const s = await rawSocket(h.url);
    sockets.push(s);
    expect(await s.timeout(5000).emitWithAck('hello', { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] })).toMatchObject({ ok: true });
    const watched = closedByHost(h, s);
    stopReading(s);
    await fillSocketBuffers(h, s, 16 * 1024);
    // A push that is no push is refused 400: 60,000 of them would queue some 9 MB.
    const most = await sendUntilClosed(watched, () => s.emit('push', { ops: 'none' }, () => undefined), 60_000);
    expect(most).toBeLessThanOrEqual(perConnection + REFUSALS_UNREAD_BYTES + 256 * 1024);
  });

  it('HOST-6: a connection whose client takes none of what it was sent for readStallTimeout is closed at its next packet, a pong included, under every byte bound', async () => {
    const h = await startHub({ options: { access: 'public', pageBytes: 256 * 1024, readStallTimeout: 300 } });
    // Some 300 KB: a first page of the whole 256 KB.
    await Promise.all(Array.from({ length: 300 }, (_, i) => h.storage.insert({ i, pad: 'x'.repeat(1000) })));
    const s = await rawSocket(h.url);
    sockets.push(s);
    expect(await s.timeout(5000).emitWithAck('hello', { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] })).toMatchObject({ ok: true });
    const first = (await s.timeout(5000).emitWithAck('snapshot', {})) as { value: { token: string } };
    const { closed } = closedByHost(h, s);
    stopReading(s);
    await fillSocketBuffers(h, s, 1024 * 1024);
    // A page asked now and then, some 2.5 MB a second: the host holds them (READ_BACKLOG keeps that to its
    // bounds), and the client reads none.
    const ticks = setInterval(() => s.emit('snapshot', { token: first.value.token, offset: 0 }, () => undefined), 100);
    const most = await closed;
    clearInterval(ticks);
    // Closed by the stall, under every byte bound: READ_BACKLOG's refusals and the filter would have closed it past 16 MB.
    expect(most).toBeLessThan(DEFAULT_CONNECTION_IN_FLIGHT_BYTES);
  });

  it('HOST-6: a greeted connection holding more than 10,000 packets unsent, each under the byte bounds, is closed at its next packet', async () => {
    const h = await startHub({ options: { access: 'public' } });
    const s = await rawSocket(h.url);
    sockets.push(s);
    expect(await s.timeout(5000).emitWithAck('hello', { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] })).toMatchObject({ ok: true });
    const watched = closedByHost(h, s);
    stopReading(s);
    // Under the byte bound after a hello (four times maxConnectionInFlightBytes, 64 MB by default) with room to spare.
    await fillSocketBuffers(h, s, 1024 * 1024);
    // An unsubscribe of no feed is answered ok, some 40 bytes, queued on the host: 150,000 of them would pass
    // what the kernel takes had it not been full.
    const most = await sendUntilClosed(watched, () => s.emit('unsubscribe', { sub: 'none' }, () => undefined), 150_000);
    // Closed by the packet bound: the bytes it held stayed under the byte bound.
    expect(most).toBeLessThan(4 * DEFAULT_CONNECTION_IN_FLIGHT_BYTES);
  }, 180_000); // a hang guard: with the kernel's buffers filled by small answers, 10,000 packets through a real socket took 29 s on a loaded two-core machine

  it('HOST-6: an answered call leaves no listener on its socket: a socket\'s disconnect cost the square of its calls (40,000 calls, 13.5 s of a blocked hub)', async () => {
    const h = await startHub({ options: { access: 'public' } });
    const s = await rawSocket(h.url);
    sockets.push(s);
    for (let i = 0; i < 50; i++) {
      expect(await s.timeout(5000).emitWithAck('hello', { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] })).toMatchObject({ ok: true });
    }
    expect(h.namespace().sockets.get(s.id!)!.listenerCount('disconnect')).toBeLessThan(10);
  });

  it('HOST-1 HOST-3: before a hello, a WebSocket frame declaring more than the pre-auth bytes is refused from its header (1009), before its payload is buffered', async () => {
    const h = await startHub({ options: { access: 'public' } });
    const ws = new WebSocket(`ws://127.0.0.1:${h.port}/socket.io/?EIO=4&transport=websocket`);
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    // A masked text frame declaring 4,000,000 bytes, and the first kilobyte of them: the rest never comes.
    const header = Buffer.alloc(14);
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(4_000_000n, 2);
    (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(Buffer.concat([header, Buffer.alloc(1024, 0x61)]));
    expect(await closed).toBe(1009);
  });

  it('HOST-1 HOST-21: a hello lifts the frame bound, and a refused re-hello puts it back, whichever check refused it', async () => {
    const h = await startHub({ options: { access: 'public', authorize: (_ctx, hello) => hello.token === 't' } });
    const s = await rawSocket(h.url);
    sockets.push(s);
    const hello = (token: string) => s.timeout(5000).emitWithAck('hello', { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'], token });
    expect(await hello('t')).toMatchObject({ ok: true });
    expect(await hello('wrong')).toMatchObject({ ok: false, error: { status: 401 } });
    expect(await hello('t')).toMatchObject({ ok: true });
    // Refused by the envelope's check this time, before the unit sees it.
    expect(await s.timeout(5000).emitWithAck('hello', { node: 5 })).toMatchObject({ ok: false, error: { status: 400 } });
    const gone = new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));
    // A masked text frame declaring 4,000,000 bytes, its first kilobyte written.
    const header = Buffer.alloc(14);
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(4_000_000n, 2);
    (s.io.engine as unknown as { transport: { ws: { _socket: { write(b: Buffer): void } } } }).transport.ws._socket.write(Buffer.concat([header, Buffer.alloc(1024, 0x61)]));
    expect(await gone).toMatch(/transport (close|error)/);
  });

  it('HOST-3: the gateway speaks WebSocket only: an HTTP long-polling handshake is refused', async () => {
    const h = await startHub({ options: { access: 'public' } });
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: h.port, path: '/socket.io/?EIO=4&transport=polling' }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject).end();
    });
    expect(status).toBe(400);
  });
});

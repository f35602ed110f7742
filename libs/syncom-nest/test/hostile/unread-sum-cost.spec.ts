import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of } from 'rxjs';
import type { Socket } from 'socket.io';
import type { Storage } from 'syncom';
import { SyncomUnreadInterceptor } from '../../src/gateway/unread.interceptor';
import { countOutput, unreadEverywhere } from '../../src/gateway/unread-bytes';

/**
 * A call whose answer may be large (hello, snapshot, reconcile, records, a
 * chunk) from a socket with answers unread is held to every socket's unread
 * bytes together (READ_BACKLOG, docs/security.md). That sum walked every
 * packet each connection held unsent, once per 50 ms: connections that read
 * nothing each hold up to 10,000 tiny answers, and one such call every 50 ms
 * (a hello, before any session) had the host walk all of them each time,
 * work growing with what the others hold, not with what the caller sent.
 * Each connection counts what it queues as engine.io queues it (countOutput):
 * the sum reads those counts.
 */
const CONNECTIONS = 200;
const PACKETS = 1000;
const CALLS = 100;

/** A fake engine.io connection holding `n` unsent packets of 40 characters; `reads` counts each read of a packet's data. */
function connection(n: number, reads: { count: number }) {
  const packet = () => ({ get data() { reads.count++; return 'x'.repeat(40); } });
  const conn = { writeBuffer: Array.from({ length: n }, packet), transport: { socket: { bufferedAmount: 0 } }, on: () => undefined };
  countOutput(conn);
  return conn;
}

describe('hostile: the host-wide sum of unread answers', () => {
  it(`HOST-6: ${CALLS} calls from a socket with answers unread, each 50 ms after the last, read no packet of ${CONNECTIONS} connections holding ${PACKETS.toLocaleString('en')} unsent each`, async () => {
    const reads = { count: 0 };
    const sockets = new Map<string, Socket>();
    const nsp = { sockets };
    for (let i = 0; i < CONNECTIONS; i++) sockets.set(`s${i}`, { id: `s${i}`, nsp, conn: connection(PACKETS, reads) } as unknown as Socket);
    const caller = sockets.get('s0') as Socket;
    const storage = { sync: { limited: () => undefined } } as unknown as Storage;
    // A host budget of 1 MiB: the 200 connections' 8 MB pass it, so each call is refused, as it must be.
    const interceptor = new SyncomUnreadInterceptor(storage, { maxInFlightBytes: 1 << 20 });
    const context = { switchToWs: () => ({ getClient: () => caller }) } as unknown as ExecutionContext;
    const next: CallHandler = { handle: () => of(null) };
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    reads.count = 0;
    let refused = 0;
    try {
      for (let i = 0; i < CALLS; i++) {
        now += 50;
        try {
          await lastValueFrom(interceptor.intercept(context, next));
        } catch (e) {
          expect(e).toMatchObject({ error: { code: 'READ_BACKLOG', status: 429 } });
          refused++;
        }
      }
    } finally {
      clock.mockRestore();
    }
    expect(refused).toBe(CALLS);
    // Each call had read every packet of every connection: CALLS * CONNECTIONS * PACKETS (20 million) reads.
    expect(reads.count).toBe(0);
  });

  it('HOST-6: a buffer queued on many connections (a fan-out page) counts once, while any of them holds it; strings count on each; a flush or a close lets go', () => {
    type Listener = (x?: unknown) => void;
    const conns = Array.from({ length: 5 }, () => {
      const on = new Map<string, Listener>();
      const conn = { writeBuffer: [] as { data?: unknown }[], transport: { socket: { bufferedAmount: 0 } }, on: (e: string, l: Listener) => void on.set(e, l) };
      countOutput(conn);
      const queue = (data: unknown) => { const p = { data }; on.get('packetCreate')?.(p); conn.writeBuffer.push(p); };
      const flush = () => { const w = conn.writeBuffer; on.get('flush')?.(w); conn.writeBuffer = []; };
      return { conn, queue, flush, close: () => on.get('close')?.() };
    });
    const sockets = conns.map(({ conn }) => ({ conn }) as unknown as Socket);
    const base = unreadEverywhere(sockets);
    const page = Buffer.alloc(10_000);
    for (const c of conns) { c.queue(page); c.queue('{"e":1}'); }
    expect(unreadEverywhere(sockets) - base).toBe(10_000 + 5 * 7);
    conns[0].flush();
    conns[1].close();
    expect(unreadEverywhere(sockets) - base).toBe(10_000 + 3 * 7);
    for (const c of conns.slice(2)) c.flush();
    expect(unreadEverywhere(sockets)).toBe(base);
  });
});

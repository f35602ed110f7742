import type { Socket } from 'socket.io';

/** What an engine.io connection holds unsent: its write buffer, and its WebSocket's own. */
export interface EngineOutput {
  writeBuffer?: { data?: unknown }[];
  transport?: { socket?: { bufferedAmount?: number; terminate?(): void } };
  readyState?: string;
  close?(discard?: boolean): void;
}

/** The bytes of a packet's data as queued (a string's code units, a buffer's bytes). */
export function queuedSize(data: unknown): number {
  if (typeof data === 'string') return data.length;
  return (data as { byteLength?: number } | undefined)?.byteLength ?? 0;
}

/** A connection's write buffer as counted when it grows and when it is flushed. */
interface Queued { bytes: number; packets: number }

const counted = new WeakMap<object, Queued>();

/**
 * What every counted connection holds in its write buffer, a buffer several
 * of them hold counted once: the fan-out queues one page Buffer on every
 * connection at its position, and counting it once a connection made a burst
 * to 5,000 subscribers read as 5,000 pages (the host's READ_BACKLOG bound).
 */
let queuedEverywhere = 0;
const holders = new WeakMap<object, number>();

function hold(data: unknown): void {
  if (typeof data === 'object' && data !== null) {
    const n = holders.get(data) ?? 0;
    holders.set(data, n + 1);
    if (n > 0) return;
  }
  queuedEverywhere += queuedSize(data);
}

function release(data: unknown): void {
  if (typeof data === 'object' && data !== null) {
    const n = holders.get(data) ?? 0;
    if (n > 1) return void holders.set(data, n - 1);
    holders.delete(data);
  }
  queuedEverywhere -= queuedSize(data);
}

/**
 * Count what `conn` queues from now on, as engine.io queues and flushes it,
 * so that what it holds unsent is known in O(1): the gate asks at every
 * packet a client sends, and walking the write buffer each time cost the
 * square of a burst of calls from a client that reads nothing (160,000
 * calls, 7.9 s of the hub's CPU). Each packet is also held in the count of
 * every connection's (queuedEverywhere) until flushed, or its connection closes.
 */
export function countOutput(conn: EngineOutput & { on(event: string, listener: (x?: unknown) => void): void }): void {
  if (counted.has(conn)) return;
  const q: Queued = { bytes: 0, packets: 0 };
  for (const p of conn.writeBuffer ?? []) { q.bytes += queuedSize(p.data); q.packets++; hold(p.data); }
  counted.set(conn, q);
  conn.on('packetCreate', (p) => {
    const data = (p as { data?: unknown } | undefined)?.data;
    q.bytes += queuedSize(data);
    q.packets++;
    hold(data);
  });
  const flushed = (packets: unknown) => {
    for (const p of (packets as { data?: unknown }[] | undefined) ?? []) release(p.data);
    q.bytes = 0;
    q.packets = 0;
  };
  conn.on('flush', flushed);
  // engine.io empties the write buffer of a closed connection a tick after its 'close', unsent.
  conn.on('close', () => flushed(conn.writeBuffer));
}

/**
 * What every socket of `sockets` holds for its client unsent, a buffer
 * several connections hold counted once: what engine.io holds for every
 * counted connection (of any namespace of the server), and each one's
 * WebSocket buffer; a connection not counted is walked.
 */
export function unreadEverywhere(sockets: Iterable<Socket>): number {
  let bytes = queuedEverywhere;
  for (const s of sockets) {
    const conn = s.conn as unknown as EngineOutput;
    bytes += conn.transport?.socket?.bufferedAmount ?? 0;
    if (!counted.has(conn)) for (const p of conn.writeBuffer ?? []) bytes += queuedSize(p.data);
  }
  return bytes;
}

/** What an engine.io connection holds for its client unsent, whichever namespace queued it. */
export function connectionUnread(conn: EngineOutput): number {
  const n = conn.transport?.socket?.bufferedAmount ?? 0;
  const q = counted.get(conn);
  if (q) return n + q.bytes;
  let walked = n;
  for (const p of conn.writeBuffer ?? []) walked += queuedSize(p.data);
  return walked;
}

/** The packets an engine.io connection holds in its write buffer. */
export function queuedPackets(conn: EngineOutput): number {
  return counted.get(conn)?.packets ?? conn.writeBuffer?.length ?? 0;
}

/** What the socket's connection holds for it unsent: engine.io's write buffer and the WebSocket's own. */
export function unreadBytes(socket: Socket): number {
  return connectionUnread(socket.conn as unknown as EngineOutput);
}

/**
 * Ends a connection whose client reads nothing, at once: a WebSocket closing
 * politely waits for the client's close frame, which one that reads nothing
 * never sends, and until then holds all it queued (a minute and more).
 */
export function dropConnection(conn: EngineOutput): void {
  conn.transport?.socket?.terminate?.();
  if (conn.readyState === 'open') conn.close?.(true);
}

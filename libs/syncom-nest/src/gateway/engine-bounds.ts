import type { Namespace } from 'socket.io';
import type { SampledLog } from './sampled-log';
import { dropConnection, type EngineOutput } from './unread-bytes';

/** Connections the gateway's server takes at once by default (maxConnections): the hub's target of 5,000 peers, twice over. */
export const DEFAULT_MAX_CONNECTIONS = 10_000;

/**
 * Bytes of half-received WebSocket messages held over every connection by
 * default (maxInboundBytes): sixteen of the largest message, at least 64 MiB.
 */
export function defaultInboundBytes(messageBytes: number): number {
  return Math.max(64 * 1024 * 1024, 16 * messageBytes);
}

/** How often the connections' half-received bytes are added up. */
export const INBOUND_SWEEP_MS = 1000;

/** What engine.io's server exposes here: its connections by id, its options. */
interface Engine {
  clients: Record<string, EngineOutput & { transport?: { socket?: { _receiver?: Receiver } } }>;
  clientsCount: number;
  opts: { allowRequest?: (req: unknown, fn: (message: string | null | undefined, success: boolean) => void) => void };
  on(event: 'connection', listener: () => void): void;
}

/** ws's receiver: what it buffered of a frame not yet whole, and the fragments of a message not yet finished. */
interface Receiver {
  _bufferedBytes?: number;
  _messageLength?: number;
}

const engineOf = (namespace: Namespace) => namespace.server.engine as unknown as Engine;

/**
 * Refuses a connection's handshake (engine.io answers 403 with the message)
 * while the server holds `max` connections: each costs tens of kilobytes
 * however little it sends, and on an open hub nothing else bounds their
 * number. An application's own allowRequest still runs for the rest. The
 * count is the engine's, every namespace's connections together.
 */
export function capConnections(namespace: Namespace, max: number, log: SampledLog): void {
  if (!(max > 0)) return;
  const engine = engineOf(namespace);
  const theirs = engine.opts.allowRequest;
  engine.opts.allowRequest = (req, fn) => {
    if (engine.clientsCount >= max) {
      log.warn('connections', `refused a connection: the server holds ${engine.clientsCount} (maxConnections ${max})`);
      return fn(`the server holds its most connections (${max}): try again later`, false);
    }
    if (theirs) return theirs(req, fn);
    fn(null, true);
  };
}

/** What a socket of the namespace exposes here: its engine.io connection, and how to hear it go. */
interface NamespaceSocket {
  conn: object;
  handshake: { address: string };
  once(event: 'disconnect', listener: () => void): unknown;
}

/**
 * One socket per connection on the gateway's namespace: `admit(socket)` at
 * each socket's connection says whether it may stay, and closes its whole
 * connection when another socket of the same connection is there already.
 * socket.io closes a connection whose client connects again to a namespace
 * it is connected to, but not one whose connects all arrive while the first
 * is still being admitted (its middlewares run asynchronously): 3,000 connects
 * in one write made 3,000 sockets on one connection, each with its own feeds
 * and, on an open gateway, its own rate, while maxConnections counted one
 * (10 connections held 30,000 sockets, 180 MB of heap). A syncom link never
 * opens a second socket on a connection: it is a client sending by hand.
 */
export class OneSocketPerConnection {
  private readonly held = new WeakMap<object, NamespaceSocket>();

  constructor(private readonly log: SampledLog) {}

  admit(socket: NamespaceSocket): boolean {
    const other = this.held.get(socket.conn);
    if (other !== undefined && other !== socket) {
      this.log.warn('sockets', `closed the connection of ${socket.handshake.address}: it opened a second socket on the namespace`);
      // At once: a polite close waits for the client's close frame, and its sockets with it.
      dropConnection(socket.conn as EngineOutput);
      return false;
    }
    this.held.set(socket.conn, socket);
    socket.once('disconnect', () => {
      if (this.held.get(socket.conn) === socket) this.held.delete(socket.conn);
    });
    return true;
  }
}

/** What one connection holds of messages it has not finished sending, in bytes (O(1)). */
export function heldInbound(conn: { transport?: { socket?: { _receiver?: Receiver } } }): number {
  const r = conn.transport?.socket?._receiver;
  return (r?._bufferedBytes ?? 0) + (r?._messageLength ?? 0);
}

/**
 * Bounds the bytes every connection together holds of messages not yet whole.
 * The frame bound keeps a connection's message under the largest one, but a
 * client may send all of such a message but its last byte and then nothing,
 * until its ping times out (about 45 s), and on an open hub a hello lifts the
 * bound for anyone: 150 connections held 565 MB that way. Once a second the
 * connections' half-received bytes are added up; past the budget, those that
 * held some at the sweep before too (an honest message arrives whole within
 * moments), largest first, are closed until the rest fit. Between two sweeps
 * the total may pass the budget by what arrives in a second.
 */
export class InboundBudget {
  /** What each connection held at the last sweep. */
  private readonly last = new WeakMap<object, number>();
  private timer?: ReturnType<typeof setInterval>;

  constructor(private readonly namespace: Namespace, readonly budget: number, private readonly log: SampledLog, private readonly everyMs = INBOUND_SWEEP_MS) {
    if (!(budget > 0)) return;
    engineOf(namespace).on('connection', () => this.start());
  }

  /**
   * Adds up what every connection holds half-received and closes the oldest
   * holders, largest first, while the total is over the budget; returns how
   * many it closed.
   */
  sweep(): number {
    const engine = engineOf(this.namespace);
    if (engine.clientsCount === 0) this.stop();
    let total = 0;
    const held: [EngineOutput, number][] = [];
    for (const id in engine.clients) {
      const conn = engine.clients[id];
      const bytes = heldInbound(conn);
      const before = this.last.get(conn) ?? 0;
      this.last.set(conn, bytes);
      total += bytes;
      if (bytes > 0 && before > 0) held.push([conn, bytes]);
    }
    if (total <= this.budget) return 0;
    held.sort((a, b) => b[1] - a[1]);
    let closed = 0;
    for (const [conn, bytes] of held) {
      if (total <= this.budget) break;
      dropConnection(conn);
      this.last.delete(conn);
      total -= bytes;
      closed++;
    }
    if (closed > 0) this.log.warn('inbound', `closed ${closed} connection(s) holding half-sent messages: every connection together held over ${this.budget} bytes (maxInboundBytes)`);
    return closed;
  }

  /** Stops sweeping (the server closes); a new connection starts it again. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.everyMs);
    // A sweep never keeps the process alive: the server's connections do.
    this.timer.unref?.();
  }
}

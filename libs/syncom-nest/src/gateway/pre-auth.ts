import type { Namespace, Socket } from 'socket.io';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import { MAX_ENVELOPE_DEPTH, type EnvelopeBounds } from './envelope-bounds';
import type { SampledLog } from './sampled-log';
import { connectionUnread, countOutput, dropConnection, type EngineOutput, queuedPackets } from './unread-bytes';

/**
 * The most a message may weigh, in UTF-8 bytes, on a socket without a
 * current hello whose handshake was not authenticated either (the connect
 * packet included). An honest hello is the largest such message: a few
 * hundred bytes, and more for each scope it names (its vector holds only the
 * dialer's own streams, however many origins it has seen). A socket whose
 * handshake passed authorize (access 'session') is held to the full bounds;
 * a public gateway whose peers name hundreds of scopes raises `preAuthBytes`.
 */
export const DEFAULT_PRE_AUTH_BYTES = 64 * 1024;

/** The bounds a message from a socket without a current hello is held to: keys and items at most a sixteenth of its bytes (4,096 by default). */
export function preAuthBounds(bytes: number = DEFAULT_PRE_AUTH_BYTES): EnvelopeBounds {
  return { maxDepth: MAX_ENVELOPE_DEPTH, maxEntries: Math.max(4096, Math.floor(bytes / 16)) };
}

/** The gateway's pre-authentication byte limit from its option, the default when unset or invalid. */
export function preAuthBytesOf(option: number | undefined): number {
  return option !== undefined && Number.isFinite(option) && option > 0 ? Math.floor(option) : DEFAULT_PRE_AUTH_BYTES;
}

interface EnginePacket { type: string; data?: unknown }
interface EngineConn extends EngineOutput {
  readyState: string;
  on(event: 'packet', listener: (packet: EnginePacket) => void): void;
  write(data: string): void;
  close(discard?: boolean): void;
}

/**
 * socket.io's CONNECT_ERROR packet (type 4) for namespace `nsp`, as its server writes one for a namespace it
 * does not know: socket.io-client turns it into a `connect_error` whose `data` is the refusal's wire form.
 */
function connectError(nsp: string, message: string): string {
  const data = { message, data: { code: 'BAD_REQUEST', status: 400, message } };
  return `4${nsp === '/' ? '' : `${nsp},`}${JSON.stringify(data)}`;
}

/** socket.io's packet types whose attachments follow as binary packets. */
const BINARY_TYPES = new Set(['5', '6']);

/**
 * A socket.io packet's namespace and whether it has binary attachments,
 * read from its header (`<type>[<n>-][/<nsp>,][<ack>]<json>`) without
 * parsing it; at most the namespace's length plus a few characters.
 */
export function packetHeader(data: string): { nsp: string; binary: boolean } {
  let i = 1;
  const binary = BINARY_TYPES.has(data[0]);
  // The attachment count runs to its '-' however many digits it has: socket.io's parser reads
  // "0000000000000000001" as 1, and a header cut at a fixed width misplaced the namespace.
  if (binary) {
    const dash = data.indexOf('-', 1);
    if (dash < 0) return { nsp: '/', binary };
    i = dash + 1;
  }
  if (data[i] !== '/') return { nsp: '/', binary };
  const end = data.indexOf(',', i);
  return { nsp: end < 0 ? data.slice(i) : data.slice(i, end), binary };
}

/** Whether a string passes `max` UTF-8 bytes; measured only near the bound (a code unit is 1 to 3 bytes). */
function over(data: string, max: number): boolean {
  if (data.length > max) return true;
  return data.length * 3 > max && Buffer.byteLength(data) > max;
}

/**
 * The most a connection may hold for its client unsent, in bytes, before a
 * hello succeeds on it: refusals and connect errors, each under a kilobyte.
 */
export const PRE_AUTH_UNREAD_BYTES = 256 * 1024;

/** What an engine.io packet adds to a message's bytes in its WebSocket frame, and a little more. */
const FRAME_HEADROOM = 1024;

/**
 * Sets what a WebSocket frame (its fragments together) of the connection may
 * weigh: ws refuses a longer one from its header, before it buffers the
 * payload (close 1009). ws keeps the bound on its receiver; a transport
 * without one is left as it is. Before a hello a frame was read up to
 * maxHttpBufferSize (4 MiB) and only then refused: 100 connections each
 * sending all but the last byte of one held 340 MB.
 */
function setFrameBound(conn: EngineConn, bytes: number): void {
  const receiver = (conn.transport?.socket as { _receiver?: { _maxPayload?: unknown } } | undefined)?._receiver;
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes;
}

/**
 * The most packets a connection may hold unsent when one of its packets
 * arrives: an answered call queues its answer's packet whatever it weighs,
 * and a tiny one is a packet object of some 150 bytes of heap against the
 * 40 counted.
 */
export const MAX_QUEUED_PACKETS = 10_000;

/** How long a connection may hold output its client takes none of, by default (readStallTimeout). */
export const DEFAULT_READ_STALL_MS = 60_000;

/** What the gate needs of the gateway: its namespace, the pre-auth limit, and whether a socket has a session. */
export interface PreAuthOptions {
  namespace: Namespace;
  bytes: number;
  /**
   * The most a connection may hold unsent for its client when a packet of
   * it arrives: `before` a hello succeeds (or the handshake was
   * authenticated) on it, `after`. Past it the connection is closed, and
   * so it is when its client took none of it for `stallMs`.
   */
  unread: { before: number; after: number; stallMs: number };
  /** What a WebSocket frame may weigh once a hello succeeded on its connection (the server's maxHttpBufferSize). */
  frameBytes: number;
  log: SampledLog;
  /** Whether that socket's handshake passed authorize (access 'session') or a hello succeeded on it. */
  greeted(socket: Socket): boolean;
}

/**
 * Holds every engine.io connection to the pre-authentication limit until a
 * hello succeeds on this namespace: a text packet over `bytes` to this
 * namespace, or to one the application does not serve (socket.io decodes
 * every packet before it finds no handler, the root namespace `/` included),
 * closes the connection before socket.io parses it. A packet with binary
 * attachments (no syncom message has any) to either is refused on every
 * connection, greeted or not: socket.io buffers up to ten attachments of
 * maxHttpBufferSize each before a handler sees them. The engine emits
 * `packet` before it hands the data to socket.io's decoder, and closing the
 * socket.io client there takes the decoder off the connection
 * synchronously; the size is known without reading the text. socket.io's
 * maxHttpBufferSize bounds every packet of the server; this bounds, per
 * connection, what is parsed before anyone knows who sent it.
 *
 * It also bounds what a connection makes the host send and the client never
 * reads: every packet that arrives while the connection holds more than
 * `unread` unsent closes it. A client that sent five-byte connects to a
 * namespace nobody serves, and read none of the errors socket.io answered,
 * took a hub from 199 MB to 1,145 MB in 20 s. And a connect to a namespace
 * nobody serves closes the connection at once: socket.io accepts one to
 * `/` whatever the application serves, and kept such a socket, which
 * reaches nothing, open for good (test/hostile/unread-output.e2e-spec.ts).
 */
export class PreAuthGate {
  private readonly sockets = new WeakMap<object, Socket>();
  /** Each connection's TCP bytes written when last seen to move (or to have nothing unsent), and when. */
  private readonly progress = new WeakMap<object, { written: number; at: number }>();

  constructor(private readonly o: PreAuthOptions) {
    const engine = o.namespace.server.engine as unknown as { on(event: 'connection', listener: (conn: EngineConn) => void): void };
    engine.on('connection', (conn) => {
      countOutput(conn as unknown as Parameters<typeof countOutput>[0]);
      // A WebSocket frame is read whole before any packet of it is seen: until a hello, at most the pre-auth bytes.
      this.holdFrames(conn);
      conn.on('packet', (packet) => this.onPacket(conn, packet));
    });
  }

  /** The gateway's socket on its engine.io connection: its session lifts the limit. */
  track(socket: Socket): void {
    this.sockets.set(socket.conn, socket);
    if (this.o.greeted(socket)) this.lift(socket);
  }

  /** The socket's hello succeeded (or its handshake was authenticated): its connection's frames may weigh a full message. */
  lift(socket: Socket): void {
    setFrameBound(socket.conn as unknown as EngineConn, this.o.frameBytes);
  }

  /** The socket's session ended (a new hello is under way): its frames are held to the pre-auth bound unless its handshake was authenticated. */
  lower(socket: Socket): void {
    if (!this.o.greeted(socket)) this.holdFrames(socket.conn as unknown as EngineConn);
  }

  /** The connection's frames held to the pre-auth bytes, where this namespace is all the server serves. */
  private holdFrames(conn: EngineConn): void {
    if (!this.othersServed()) setFrameBound(conn, this.o.bytes + FRAME_HEADROOM);
  }

  /** Whether the server serves a namespace beside this one: its clients' frames are its own to bound. */
  private othersServed(): boolean {
    const server = this.o.namespace.server as unknown as { _nsps?: Map<string, unknown> };
    for (const nsp of server._nsps?.keys() ?? []) if (nsp !== this.o.namespace.name && this.served(nsp)) return true;
    return this.dynamic();
  }

  private onPacket(conn: EngineConn, packet: EnginePacket): void {
    const data = packet.data;
    if (conn.readyState !== 'open') return;
    // Every packet, a pong included (what keeps a connection alive): is its client reading what it was sent?
    if (this.stalled(conn)) return this.refuse(conn, this.sockets.get(conn), 'unread', `its client read none of what it was sent for ${this.o.unread.stallMs} ms`);
    // Binary packets follow a text header, which is refused first.
    if (packet.type !== 'message' || typeof data !== 'string') return;
    const socket = this.sockets.get(conn);
    const greeted = socket?.connected === true && this.o.greeted(socket);
    const unread = connectionUnread(conn);
    if (unread > (greeted ? this.o.unread.after : this.o.unread.before) || queuedPackets(conn) > MAX_QUEUED_PACKETS) {
      return this.refuse(conn, socket, 'unread', `it holds ${unread} bytes its client has not read`);
    }
    const { nsp, binary } = packetHeader(data);
    if (nsp !== this.o.namespace.name) {
      if (this.served(nsp)) return;
      // A connect (socket.io packet type 0) to a namespace nobody serves reaches nothing.
      if (data[0] === '0' && !this.dynamic()) return this.refuseConnect(conn, socket, nsp);
    }
    if (binary) return this.refuse(conn, socket, 'binary', 'a message may have no binary attachments');
    if (greeted) return;
    if (over(data, this.o.bytes)) this.refuse(conn, socket, 'bytes', `before a hello succeeds a message may weigh at most ${this.o.bytes} bytes`);
  }

  /**
   * Whether the connection holds output its client has taken none of for
   * `stallMs`: the bytes its TCP socket handed the system have not moved since, while
   * something waits unsent. A client that reads nothing and answers pings
   * keeps what it was sent on the host for good, under the bounds above,
   * and every socket's together count against READ_BACKLOG's host bound.
   * A slow honest reader moves the count; an idle one holds nothing unsent.
   */
  private stalled(conn: EngineConn): boolean {
    const now = Date.now();
    // What the TCP socket handed on to the system, in O(1): its bytesWritten getter walks what waits in its own
    // buffer (milliseconds a packet with megabytes waiting), and counts what has not moved.
    const tcp = (conn.transport?.socket as { _socket?: { _bytesDispatched?: number } } | undefined)?._socket;
    const written = tcp?._bytesDispatched ?? 0;
    const seen = this.progress.get(conn);
    if (!seen || seen.written !== written || connectionUnread(conn) === 0) {
      this.progress.set(conn, { written, at: now });
      return false;
    }
    return now - seen.at > this.o.unread.stallMs;
  }

  /** Whether the server makes namespaces as clients name them (`of()` with a pattern): none is known to be unserved before its connect. */
  private dynamic(): boolean {
    const server = this.o.namespace.server as unknown as { parentNsps?: Map<unknown, unknown>; _parentNsps?: Map<unknown, unknown> };
    return (server.parentNsps ?? server._parentNsps)?.size ? true : false;
  }

  /** Whether the application serves namespace `nsp` (something listens for its connections): its packets are its own to bound. */
  private served(nsp: string): boolean {
    const server = this.o.namespace.server as unknown as { _nsps?: Map<string, { listenerCount(event: string): number }> };
    const n = server._nsps?.get(nsp);
    return n !== undefined && n.listenerCount('connection') + n.listenerCount('connect') > 0;
  }

  /**
   * A connect to a namespace nobody serves closes the connection, its client told why first: a dialer
   * given the hub's address without the gateway's namespace, or with a trailing slash, redialed unsaid
   * for good (test/link/wrong-namespace.e2e-spec.ts). The close waits for that one small packet to go out.
   */
  private refuseConnect(conn: EngineConn, socket: Socket | undefined, nsp: string): void {
    const served = JSON.stringify(this.o.namespace.name);
    const message = `nothing is served on namespace ${JSON.stringify(nsp.slice(0, 64))}: syncom peers are served on ${served} (a dialer's url ends with it)`;
    conn.write(connectError(nsp.slice(0, 64), message));
    this.refuse(conn, socket, 'namespace', message);
  }

  private refuse(conn: EngineConn, socket: Socket | undefined, kind: 'unread' | 'namespace' | 'binary' | 'bytes', message: string): void {
    this.o.log.warn(`closed ${kind}`, `closed the connection of ${socket?.handshake.address ?? 'a client'}: ${message}`);
    // A client that reads nothing is told nothing more.
    if (socket?.connected && kind !== 'unread') {
      const code = kind === 'namespace' ? 'BAD_REQUEST' : 'MESSAGE_TOO_LARGE';
      socket.emit(SYNCOM_EVENTS.exception, { ok: false, error: { code, status: kind === 'namespace' ? 400 : 413, message } });
      // Closes the socket.io client at once (the packet is never decoded), then the transport once the notice is out.
      socket.disconnect(true);
    }
    if (kind === 'unread') dropConnection(conn);
    else if (conn.readyState === 'open') conn.close(kind !== 'namespace');
  }
}

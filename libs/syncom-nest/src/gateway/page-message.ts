import type { Socket } from 'socket.io';
import { type EngineSocket, writeFrame } from './frame-writer';

/** A page's JSON after its `sub`, encoded once for every socket that sends the same page. */
interface Encoded {
  eventId?: string;
  /** `"value":…,"eventId":"…"}]`: the end of the packet's JSON (made from the body when first needed, for a page made as bytes). */
  tail?: string;
  /**
   * The tail's UTF-8 bytes: the end of the WebSocket frame, the same Buffer
   * for every socket. Made at once for a page stringified here; for a page
   * made as bytes, joined from `pieces` at its second send (or where a
   * transport needs one Buffer), so a page sent once, a writer's own view of
   * a shared read, is never copied into one.
   */
  body?: Buffer;
  /** A page made as bytes: its body in parts (`"value":`, the page's own, the end) until joined. */
  pieces?: Uint8Array[];
  /** The body's length in bytes. */
  length: number;
  /** Frames made of it so far. */
  sends: number;
}

/** Encodings by page object: the unit's feeds at one position send the same object (SharedReads). */
const encodings = new WeakMap<object, Encoded>();

/** Pages encoded so far (a test counts the encodings with it). */
export const pageEncodings = { count: 0 };

/** The key under which syncom's shared reads give a page's JSON made in advance (page-text.ts): a function returning its UTF-8 bytes in parts. */
const PAGE_BYTES = Symbol.for('syncom.pageBytes');
const VALUE = Buffer.from('"value":');

/** The body's parts from the page's own bytes, when it has them: its ops are neither stringified nor encoded again. */
function madeParts(value: object, eventId: string | undefined): Uint8Array[] | undefined {
  const made = (value as { [PAGE_BYTES]?: unknown })[PAGE_BYTES];
  if (typeof made !== 'function') return undefined;
  const end = Buffer.from(`${eventId === undefined ? '' : `,"eventId":${JSON.stringify(eventId)}`}}]`);
  return [VALUE, ...(made() as Uint8Array[]), end];
}

/** The body as one Buffer, joined from its parts the first time it is asked for. */
function joined(page: Encoded): Buffer {
  if (!page.body) {
    page.body = Buffer.concat(page.pieces ?? []);
    page.pieces = undefined;
  }
  return page.body;
}

/** What a frame carries after its head: the parts at a page's first send, one Buffer shared by every later one. */
function bodyOf(page: Encoded): Uint8Array[] {
  return page.sends++ === 0 && page.pieces ? page.pieces : [joined(page)];
}

/** The page's tail, from the cache when the same page was encoded for another socket; undefined for a value that is no object. */
function encode(value: unknown, eventId: string | undefined): Encoded | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const kept = encodings.get(value);
  if (kept && kept.eventId === eventId) return kept;
  const parts = madeParts(value, eventId);
  const json = parts === undefined ? JSON.stringify({ value, eventId }) : '';
  if (parts === undefined && json.length < 3) return undefined;
  pageEncodings.count++;
  const tail = parts === undefined ? `${json.slice(1)}]` : undefined;
  const body = tail === undefined ? undefined : Buffer.from(tail);
  const length = body?.length ?? (parts ?? []).reduce((n, p) => n + p.byteLength, 0);
  const encoded: Encoded = { eventId, tail, body, pieces: parts, length, sends: 0 };
  encodings.set(value, encoded);
  return encoded;
}

/** socket.io's internals this relies on (4.8: what its adapter uses to broadcast a pre-encoded packet). */
interface Internals {
  nsp: { _ids: number; name: string; server: { opts?: { connectionStateRecovery?: unknown } } };
  acks: Map<number, (...args: unknown[]) => void>;
  client: { _packet(packets: unknown[], opts: object): void };
  conn?: EngineSocket;
  listenersAnyOutgoing(): unknown[];
}

/** The ack callbacks a socket holds by id, and the namespace's next id (socket.io 4.8), where they are there. */
function ackTable(socket: Socket): { acks: Map<number, unknown>; nsp: { _ids: number } } | undefined {
  const s = socket as unknown as Internals;
  return s.acks instanceof Map && typeof s.nsp?._ids === 'number' ? s : undefined;
}

/** Whether the socket's ack callbacks can be dropped by id: where they cannot, every page's ack must come (see forgetAck). */
export function canForgetAcks(socket: Socket): boolean {
  return ackTable(socket) !== undefined;
}

/** Drops the ack callback `id` the socket holds: a page an ack already answered (cumulative acks) or of a feed that ended. */
export function forgetAck(socket: Socket, id: number): void {
  ackTable(socket)?.acks.delete(id);
}

/** socket.emit with an ack callback, and the ack id socket.io gave it (the namespace's next id as it was sent), if known. */
export function emitWithId(socket: Socket, event: string, payload: unknown, ack: (...args: unknown[]) => void): number | undefined {
  const id = ackTable(socket)?.nsp._ids;
  socket.emit(event, payload, ack);
  return id !== undefined && ackTable(socket)?.acks.get(id) !== undefined ? id : undefined;
}

/** Whether a packet may be written pre-encoded on this socket: the internals are there, nothing would see or store the packet otherwise. */
function writable(s: Internals): boolean {
  return typeof s.nsp?._ids === 'number' && s.acks instanceof Map && typeof s.client?._packet === 'function'
    && !s.nsp.server?.opts?.connectionStateRecovery && s.listenersAnyOutgoing().length === 0;
}

/** The packet's head, the Engine.IO message type before it: `4` + `2/nsp,id["event",{"sub":…,` (and `"more":true,`). */
function packetHead(nsp: string, id: number, event: string, sub: string, more: boolean): string {
  return `2${nsp !== '/' ? `${nsp},` : ''}${id}[${JSON.stringify(event)},{"sub":${JSON.stringify(sub)},${more ? '"more":true,' : ''}`;
}

/**
 * The frame's first Buffer: an unmasked, final text frame's header (RFC
 * 6455 5.2) for a payload of the head's bytes and `rest` more, then the
 * Engine.IO type and the head. One allocation from the pool.
 */
function frameStart(head: string, rest: number): Buffer {
  const start = 1 + Buffer.byteLength(head);
  const n = start + rest;
  const h = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const b = Buffer.allocUnsafe(h + start);
  b[0] = 0x81;
  if (h === 2) b[1] = n;
  else if (h === 4) {
    b[1] = 126;
    b.writeUInt16BE(n, 2);
  } else {
    b[1] = 127;
    b.writeUInt32BE(Math.floor(n / 0x100000000), 2);
    b.writeUInt32BE(n >>> 0, 6);
  }
  b[h] = 0x34;
  b.write(head, h + 1, 'utf8');
  return b;
}

/**
 * A `changes:data` message: `{ sub, value, eventId }` on the wire whichever
 * way it goes, with `more: true` when the feed sends its next page without
 * waiting for this one's ack (PROTOCOL-SOCKETIO.md, "Page acks"); it is the
 * socket's own, in the packet's head, so the page's shared bytes stay one. Sent with sendOn(), the page's JSON is made once for every
 * socket that sends the same page object, and on a WebSocket the frame's
 * bytes are that one Buffer behind a few bytes of this socket's own (its ack
 * id and sub): socket.io's binary scan and JSON.stringify run once per page,
 * not once per socket. That frame goes straight to the socket's ws sender
 * (writeFrame) unless Engine.IO holds packets it must not overtake, and then
 * through Engine.IO's pre-encoded packet path. Where that cannot be done (another socket.io, a
 * connection-state-recovery server, outgoing listeners) socket.emit sends it,
 * through toJSON.
 */
export class PageMessage {
  constructor(readonly sub: string, readonly value: unknown, readonly eventId?: string, readonly more = false) {}

  toJSON(): object {
    return this.more ? { sub: this.sub, more: true, value: this.value, eventId: this.eventId } : { sub: this.sub, value: this.value, eventId: this.eventId };
  }

  /** Writes the message on `socket` with `ack` as its ack callback; its ack id, or undefined when it must go through socket.emit instead. */
  sendOn(socket: Socket, event: string, ack: (...args: unknown[]) => void): number | undefined {
    const s = socket as unknown as Internals;
    if (!socket.connected || !writable(s)) return undefined;
    const page = encode(this.value, this.eventId);
    if (!page) return undefined;
    const id = s.nsp._ids++;
    s.acks.set(id, ack);
    const head = packetHead(s.nsp.name, id, event, this.sub, this.more);
    const start = frameStart(head, page.length);
    if (writeFrame(s.conn, [start, ...bodyOf(page)])) return id;
    // The packet's text goes too: a transport that is no WebSocket (or compresses) encodes it itself; Engine.IO writes a frame of two Buffers.
    const body = joined(page);
    s.client._packet([head + (page.tail ??= body.toString())], { preEncoded: true, compress: true, wsPreEncodedFrame: [start, body] });
    return id;
  }
}

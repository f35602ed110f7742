import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** What a WireTransport hands its owner. */
export interface TransportHandlers {
  /** The upgrade was answered: messages may be sent. */
  opened(): void;
  /**
   * A whole message (text or binary). `data` may lie in the process's read
   * buffer, which the next read overwrites: read it before returning, copy
   * what is kept.
   */
  message(data: Buffer): void;
  /** The connection ended or never opened (once). */
  closed(): void;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa };
/** The longest upgrade answer read before it is given up on. */
const HANDSHAKE_MAX = 16 * 1024;

/**
 * Every socket of the process reads into this one buffer (net's `onread`):
 * a read allocates nothing. A callback runs to its end before the next read
 * of any socket, so sharing it is safe for what is read in the callback.
 */
const READS = Buffer.allocUnsafe(256 * 1024);

/** Mask keys, drawn from the system's random source in bulk. */
const MASKS = Buffer.allocUnsafe(4096);
let maskAt = MASKS.length;

function maskKey(): Buffer {
  if (maskAt + 4 > MASKS.length) {
    randomFillSync(MASKS);
    maskAt = 0;
  }
  maskAt += 4;
  return MASKS.subarray(maskAt - 4, maskAt);
}

/** A frame whose header was read and whose payload is still arriving. */
interface Partial {
  op: number;
  fin: boolean;
  payload: Buffer;
  filled: number;
}

/**
 * The client side of a WebSocket (RFC 6455) over one TCP connection, by hand:
 * what a load peer needs (the upgrade, text frames out, whole messages in,
 * ping, close), no extensions. The `ws` package hands every read to its
 * parser as a Buffer of its own; with thousands of sockets in one process
 * those allocations kept the garbage collector busy for about a third of the
 * peers' CPU. Here reads land in one buffer per process, and only a frame
 * that spans reads is copied, once, into a buffer of its exact size.
 */
export class WireTransport {
  private readonly socket: Socket;
  private upgraded = false;
  private ended = false;
  private readonly key = randomBytes(16).toString('base64');
  /** Bytes of the upgrade answer, or of a frame header, carried to the next read. */
  private carry?: Buffer;
  private partial?: Partial;
  /** Pieces of a fragmented message, until its last frame. */
  private fragments?: { op: number; parts: Buffer[] };

  constructor(host: string, port: number, path: string, private readonly handlers: TransportHandlers) {
    this.socket = connect({ host, port, noDelay: true, onread: { buffer: READS, callback: (n: number) => (this.read(n), true) } });
    this.socket.on('connect', () => {
      this.socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${this.key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => this.end());
  }

  /** Whether messages can be sent: upgraded and not ended. */
  get open(): boolean {
    return this.upgraded && !this.ended;
  }

  /** Sends `text` as one masked text frame. */
  send(text: string): void {
    this.writeFrame(OP.text, text);
  }

  /** Ends the connection at once. */
  terminate(): void {
    this.socket.destroy();
    this.end();
  }

  /** Writes one masked frame of `op` carrying `payload` (a control frame carries at most 125 bytes). */
  private writeFrame(op: number, payload: string | Buffer): void {
    if (!this.open) return;
    const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    if (op >= OP.close && length > 125) return;
    const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
    const frame = Buffer.allocUnsafe(head + 4 + length);
    frame[0] = 0x80 | op;
    if (head === 2) frame[1] = 0x80 | length;
    else if (head === 4) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(length, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeUInt32BE(0, 2);
      frame.writeUInt32BE(length, 6);
    }
    const mask = maskKey();
    mask.copy(frame, head);
    const at = head + 4;
    if (typeof payload === 'string') frame.write(payload, at);
    else payload.copy(frame, at);
    for (let i = 0; i < length; i++) frame[at + i] ^= mask[i & 3];
    this.socket.write(frame);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.socket.destroy();
    this.handlers.closed();
  }

  /** `n` bytes arrived in READS. */
  private read(n: number): void {
    if (this.ended) return;
    let data: Buffer = READS.subarray(0, n);
    if (this.carry) {
      data = Buffer.concat([this.carry, data]);
      this.carry = undefined;
    }
    if (!this.upgraded) {
      const rest = this.handshake(data);
      if (!rest) return;
      data = rest;
    }
    let at = 0;
    if (this.partial) at = this.fill(data);
    while (at < data.length && !this.ended) {
      const next = this.frame(data, at);
      if (next < 0) {
        this.carry = Buffer.from(data.subarray(at));
        return;
      }
      at = next;
    }
  }

  /** The bytes after the upgrade answer; undefined until it is whole (carried) or when it refuses (ended). */
  private handshake(data: Buffer): Buffer | undefined {
    const end = data.indexOf('\r\n\r\n');
    if (end < 0) {
      if (data.length > HANDSHAKE_MAX) this.terminate();
      else this.carry = Buffer.from(data);
      return undefined;
    }
    const head = data.toString('latin1', 0, end);
    const accept = createHash('sha1').update(this.key + GUID).digest('base64');
    if (!/^HTTP\/1\.1 101 /.test(head) || !new RegExp(`^sec-websocket-accept: *${accept.replace(/[+/=]/g, '\\$&')} *$`, 'im').test(head)) {
      this.terminate();
      return undefined;
    }
    this.upgraded = true;
    this.handlers.opened();
    return data.subarray(end + 4);
  }

  /** Copies what `data` holds of the partial frame; the offset after it. */
  private fill(data: Buffer): number {
    const p = this.partial as Partial;
    const take = Math.min(p.payload.length - p.filled, data.length);
    data.copy(p.payload, p.filled, 0, take);
    p.filled += take;
    if (p.filled === p.payload.length) {
      this.partial = undefined;
      this.deliver(p.op, p.fin, p.payload);
    }
    return take;
  }

  /** Reads the frame at `at`: the offset after it, or -1 when its header is not whole yet (the rest is carried). */
  private frame(data: Buffer, at: number): number {
    const avail = data.length - at;
    if (avail < 2) return -1;
    const b0 = data[at];
    const b1 = data[at + 1];
    // A server never masks its frames, and no extension was agreed (RFC 6455, 5.1 and 5.2).
    if (b1 & 0x80 || b0 & 0x70) {
      this.terminate();
      return data.length;
    }
    let length = b1 & 0x7f;
    let head = 2;
    if (length === 126) {
      if (avail < 4) return -1;
      length = data.readUInt16BE(at + 2);
      head = 4;
    } else if (length === 127) {
      if (avail < 10) return -1;
      length = data.readUInt32BE(at + 2) * 2 ** 32 + data.readUInt32BE(at + 6);
      head = 10;
    }
    const op = b0 & 0x0f;
    const fin = (b0 & 0x80) !== 0;
    const start = at + head;
    if (data.length - start >= length) {
      this.deliver(op, fin, data.subarray(start, start + length));
      return start + length;
    }
    // The frame spans reads: its payload is gathered once, in a buffer of its size.
    const payload = Buffer.allocUnsafe(length);
    const have = data.length - start;
    data.copy(payload, 0, start);
    this.partial = { op, fin, payload, filled: have };
    return data.length;
  }

  private deliver(op: number, fin: boolean, payload: Buffer): void {
    if (op === OP.ping) return this.writeFrame(OP.pong, payload);
    if (op === OP.pong) return;
    if (op === OP.close) {
      this.writeFrame(OP.close, payload.subarray(0, 2));
      return this.terminate();
    }
    if (op === OP.continuation || !fin) {
      // A fragment's pieces may lie in the shared read buffer: each is copied.
      const f = (this.fragments ??= { op, parts: [] });
      f.parts.push(Buffer.from(payload));
      if (!fin) return;
      this.fragments = undefined;
      return this.handlers.message(Buffer.concat(f.parts));
    }
    if (op === OP.text || op === OP.binary) this.handlers.message(payload);
  }
}

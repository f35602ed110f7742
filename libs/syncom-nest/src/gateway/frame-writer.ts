/** The TCP socket under a WebSocket. */
interface NetSocket {
  destroyed?: boolean;
  cork?(): void;
  write?(chunk: Uint8Array): boolean;
  uncork?(): void;
}

/** ws 8's WebSocket, as Engine.IO's websocket transport holds it. */
interface WsSocket {
  readyState: number;
  _socket?: NetSocket;
  _sender?: { sendFrame?(list: Buffer[], cb?: () => void): void; _state?: number; _queue?: unknown[] };
}

/** Engine.IO 6's socket (a socket.io client's `conn`), the parts a frame written past it must respect. */
export interface EngineSocket {
  readyState?: string;
  upgrading?: boolean;
  writeBuffer?: unknown[];
  transport?: { name?: string; opts?: { perMessageDeflate?: unknown }; socket?: WsSocket };
}

/** ws's WebSocket.OPEN, and its sender's state with no frame held back (nothing deflating, no blob read). */
const WS_OPEN = 1;
const SENDER_IDLE = 0;

/** The WebSocket of `conn` when a frame may go to it directly: open, not upgrading, and nothing Engine.IO or ws still holds. */
function directSocket(conn: EngineSocket | undefined): WsSocket | undefined {
  if (!conn || conn.readyState !== 'open' || conn.upgrading || !Array.isArray(conn.writeBuffer) || conn.writeBuffer.length > 0) return undefined;
  const t = conn.transport;
  if (t?.name !== 'websocket' || t.opts?.perMessageDeflate) return undefined;
  const ws = t.socket;
  const sender = ws?._sender;
  if (!ws || ws.readyState !== WS_OPEN || typeof sender?.sendFrame !== 'function') return undefined;
  if (sender._state !== SENDER_IDLE || !Array.isArray(sender._queue) || sender._queue.length > 0) return undefined;
  const net = ws._socket;
  return net && !net.destroyed ? ws : undefined;
}

/** Whether the socket can take a frame of several parts as one write: cork, each part, uncork (as ws's sender writes two). */
function gathers(net: NetSocket | undefined): net is Required<NetSocket> {
  return typeof net?.cork === 'function' && typeof net.write === 'function' && typeof net.uncork === 'function';
}

/**
 * Writes a pre-encoded WebSocket frame straight to the socket's ws sender,
 * as Engine.IO's websocket transport does, without its packet object, write
 * buffer, callbacks and events per write; false when it cannot (another
 * transport, an upgrade, packets Engine.IO or ws still hold, which the frame
 * must not overtake): the caller then goes through Engine.IO. The write
 * happens now, inside the feed's slice, so the slice's clock counts it (a
 * socket corked to the end of the turn would save system calls only where a
 * socket is sent several frames in one turn, which round-robin slices rarely
 * do, and would write every socket's frames at once, outside any slice).
 * A frame of more than two parts (a page sent once, its ops' bytes never
 * copied into one Buffer) is written as ws's sender writes its two: the
 * socket corked, each part, uncorked, one system call; false where the
 * socket cannot, and the caller joins the parts.
 */
export function writeFrame(conn: EngineSocket | undefined, frame: Uint8Array[]): boolean {
  const ws = directSocket(conn);
  if (!ws) return false;
  if (frame.length <= 2) {
    ws._sender?.sendFrame?.(frame as Buffer[]);
    return true;
  }
  const net = ws._socket;
  if (!gathers(net)) return false;
  net.cork();
  for (const part of frame) net.write(part);
  net.uncork();
  return true;
}

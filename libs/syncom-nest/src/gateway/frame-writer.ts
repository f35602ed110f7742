/** The TCP socket under a WebSocket: what corking needs. */
interface NetSocket {
  cork(): void;
  uncork(): void;
  destroyed?: boolean;
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

/** TCP sockets corked by writeFrame in this turn of the event loop: uncorked together, once, at its end. */
let corked = new Set<NetSocket>();

function uncorkAll(): void {
  const sockets = corked;
  corked = new Set();
  for (const net of sockets) net.uncork();
}

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
  return net && !net.destroyed && typeof net.cork === 'function' ? ws : undefined;
}

/**
 * Writes a pre-encoded WebSocket frame straight to the socket's ws sender,
 * as Engine.IO's websocket transport does, without its packet, buffer and
 * events per write; false when it cannot (another transport, an upgrade,
 * packets Engine.IO or ws still hold, which the frame must not overtake):
 * the caller then goes through Engine.IO. The TCP socket stays corked until
 * the end of this turn of the event loop (one macrotask, at most a feed slice),
 * so every frame a socket is sent in it, and the answers Engine.IO writes
 * meanwhile, leave in one system call rather than one each.
 */
export function writeFrame(conn: EngineSocket | undefined, frame: Buffer[]): boolean {
  const ws = directSocket(conn);
  if (!ws) return false;
  const net = ws._socket as NetSocket;
  if (!corked.has(net)) {
    net.cork();
    corked.add(net);
    if (corked.size === 1) setImmediate(uncorkAll);
  }
  ws._sender?.sendFrame?.(frame);
  return true;
}

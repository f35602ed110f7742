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

/** What an engine.io connection holds for its client unsent, whichever namespace queued it. */
export function connectionUnread(conn: EngineOutput): number {
  let n = conn.transport?.socket?.bufferedAmount ?? 0;
  for (const p of conn.writeBuffer ?? []) n += queuedSize(p.data);
  return n;
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

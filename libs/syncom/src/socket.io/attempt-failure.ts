/** What socket.io-client's connect_error carries when the transport failed: engine.io's status and request. */
type TransportError = { message?: unknown; description?: unknown; context?: { responseText?: unknown } };

/**
 * Why an attempt to reach the host failed, for a message (at most 200
 * characters of the transport's words). A host that takes WebSocket only
 * (syncom-nest's gateway by default) answers a long-polling handshake, which
 * socket.io-client sends first unless told otherwise, 400 "Transport
 * unknown": that host was reached, and the socket is what to change.
 */
export function attemptFailure(error: unknown): string {
  const e = (error ?? {}) as TransportError;
  const text = typeof e.context?.responseText === 'string' ? e.context.responseText : '';
  if (e.description === 400 && text.includes('Transport unknown')) {
    return "the host takes WebSocket only (400 Transport unknown to long-polling): make the socket with io(url, { transports: ['websocket'] })";
  }
  return String(e.message ?? error).slice(0, 200);
}

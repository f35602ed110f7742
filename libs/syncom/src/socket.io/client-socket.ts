/**
 * What the socket.io link uses of a socket.io-client (4.x) `Socket`, written
 * out instead of imported. syncom is CommonJS, so an imported `Socket` would
 * name socket.io-client's CommonJS build, while `io()` in an ES module app
 * (a Nest 12 app) returns the ESM build's: two classes with protected members,
 * which TypeScript never takes for one another (TS2345). The socket `io()`
 * returns, of either build, fits this shape.
 *
 * @example
 * import { io } from 'socket.io-client';
 * const link = createSocketIoLink(io(url, { auth: { token } })); // no cast, CommonJS or ESM
 */
export interface ClientSocket {
  /** Whether the socket is connected now. */
  readonly connected: boolean;
  /** Whether the socket will (re)connect: false once the manager gave up or the server refused the handshake. */
  readonly active: boolean;
  /** The manager the socket reconnects through. */
  readonly io: ClientManager;
  connect(): unknown;
  disconnect(): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Messages emitted while the socket could not send them, for its next connection (socket.io-client's public buffer). */
  readonly sendBuffer?: unknown[];
  /** The socket whose next emit's ack callback gets `(err, answer)`, err once `ms` passed. */
  timeout(ms: number): { emit(event: string, ...args: unknown[]): unknown };
}

/** What the socket.io link uses of a socket.io-client `Manager`. */
export interface ClientManager {
  /** The options `io()` was given (the link reads and may set `maxPayload`: boundFrames). Typed loosely: both builds' options fit. */
  readonly opts?: object;
  on(event: 'reconnect_failed', listener: () => void): unknown;
  off(event: 'reconnect_failed', listener: () => void): unknown;
  /** Whether the manager reconnects by itself. */
  reconnection(): boolean;
  /** Its delay before a reconnection attempt, ms. */
  reconnectionDelay(): number;
}

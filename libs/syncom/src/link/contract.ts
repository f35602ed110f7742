/** What a subscriber hands the link: where to resume, and where pages go. */
export interface SubscribeOptions {
  /** The event id of the last page taken; the host resumes after it (LOG-7). */
  lastEventId?: string;
  /**
   * A page and its event id. A returned promise is awaited before the next page (backpressure).
   * `more` (a host's changes page): the host sends its next page without waiting for this one's
   * ack, so a link may hold the ack a little and answer several pages with one.
   */
  onData(value: unknown, eventId?: string, more?: boolean): void | Promise<void>;
  onError?(error: unknown): void;
  onEnd?(): void;
}

/** A live subscription; unsubscribe() ends it. */
export interface Subscription {
  unsubscribe(): void;
}

export type LinkEvent = 'open' | 'close' | 'reconnect';

/**
 * The link contract (The link contract): anything of this shape carries the
 * protocol. Reconnecting, backing off and reopening a subscription from its
 * last event id are the link's job (PROTO-12); timeouts are the link's too.
 */
export interface SyncLink {
  call(method: string, args: unknown): Promise<unknown>;
  subscribe(method: string, args: unknown, options: SubscribeOptions): Subscription;
  /** Binary-capable transports: the chunks of a streamed snapshot page (NDJSON). */
  stream?(id: string): AsyncIterable<Uint8Array>;
  on(event: LinkEvent, listener: (...args: unknown[]) => void): void;
  off(event: LinkEvent, listener: (...args: unknown[]) => void): void;
  close(): void;
}

const isFn = (x: unknown) => typeof x === 'function';

/** Whether `x` has the SyncLink shape (stream optional, LINK-8). */
export function isSyncLink(x: unknown): x is SyncLink {
  if (typeof x !== 'object' || x === null) return false;
  const l = x as Record<string, unknown>;
  return isFn(l.call) && isFn(l.subscribe) && isFn(l.on) && isFn(l.off) && isFn(l.close) && (l.stream === undefined || isFn(l.stream));
}

/**
 * The host side a link reaches: the unit of procedures storage.sync.unit()
 * returns. `context` is the connection's (one object per connection: a
 * session lives on it; a new connection has none, so its procedures get 428
 * until it greets again).
 */
export interface HostUnit {
  readonly access: 'session' | 'public';
  readonly meta?: Record<string, unknown>;
  /** hello, push, snapshot. Rejects with a SyncomError carrying `status` for a refusal. */
  call(method: string, args: unknown, context: object): Promise<unknown>;
  /** changes. */
  subscribe(method: string, args: unknown, context: object, options: SubscribeOptions): Subscription;
  /** The chunks of a streamed snapshot page, by the id a snapshot answer named. */
  stream(id: string, context: object): AsyncIterable<Uint8Array>;
  /** The connection closed: its session and feeds end. */
  disconnect(context: object): void;
}

import type { LinkEvent, Subscription } from './contract';
import { LinkListeners, type LinkConnection } from './link-connection';
import { linkDown } from './link-wire';

/** What the session asks of one subscription (a FeedCursor). */
export interface SessionFeed {
  /** Opens at the host on the live connection, after the last event id taken; `resumed` after a (re)connect. */
  open(resumed: boolean): void;
  /** The connection is gone: stop listening to the host, keep the cursor. */
  suspend(): void;
  /** Opens a feed that waited for the dialer to greet. */
  unpark(): void;
  /** Ends the feed for good, at the host too. */
  unsubscribe(): void;
  /** Ends a feed that could not start, telling the subscriber why. */
  fail(error: unknown): void;
}

/** What a transport does at the session's turns, each optional. */
export interface SessionTransport<C extends LinkConnection> {
  /** The connection just dropped, before the feeds suspend: what was in the air is gone. */
  sever?(conn: C): void;
  /** After the feeds suspended and the calls failed: the host forgets the connection. */
  release?(conn: C): void;
  /** close(): after the last connection dropped and every feed ended. */
  closed?(): void;
}

type Listener = (...args: unknown[]) => void;

/**
 * The session and resume core every SyncLink shares (the memory link, the
 * simulator's link, the socket.io link), each supplying only its transport:
 * the live connection and the calls waiting on it, the subscriptions and
 * their resume from the last event id taken after a reconnect (PROTO-12),
 * the open/close/reconnect events (LINK-6) and the end of everything on
 * close (LINK-7). The order of its steps is fixed, so a simulated run over
 * it replays.
 */
export class LinkSession<C extends LinkConnection = LinkConnection> {
  private conn: C | undefined;
  private count = 0;
  private answers = 0;
  private isClosed = false;
  private readonly listeners = new LinkListeners();
  private readonly feeds = new Set<SessionFeed>();

  constructor(private readonly transport: SessionTransport<C> = {}) {}

  /** The live connection; undefined while the link is down. */
  get live(): C | undefined {
    return this.conn;
  }

  /** How many connections the link has opened. */
  get connections(): number {
    return this.count;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** How many calls the host has answered on this link (a greeting is among them). */
  get answered(): number {
    return this.answers;
  }

  on(event: LinkEvent, listener: Listener): void {
    this.listeners.on(event, listener);
  }

  off(event: LinkEvent, listener: Listener): void {
    this.listeners.off(event, listener);
  }

  /** The connection a link is made with: no event fires for it. */
  begin(make: (n: number) => C): void {
    this.count++;
    this.conn = make(this.count);
  }

  /**
   * A new connection is up: 'open', 'reconnect' unless it is the first, then
   * every feed reopens from its last event id — after the listeners, so the
   * dialer's hello is on its way before the feeds ask. `refusedBefore`: the
   * first connection came after the host refused a handshake, which failed
   * the dialer's first hello: it is announced as a reconnect, so the dialer
   * greets again. False when the link is closed or already connected.
   */
  connected(make: (n: number) => C, refusedBefore = false): boolean {
    if (this.isClosed || this.conn) return false;
    const again = this.count > 0 || refusedBefore;
    this.begin(make);
    this.listeners.emit('open');
    if (again) this.listeners.emit('reconnect');
    for (const feed of [...this.feeds]) feed.open(true);
    return true;
  }

  /**
   * The connection dropped: feeds suspend, calls waiting on it fail with
   * LINK_DOWN (or `reason`, the host's word for why it closed), 'close' fires
   * with `reason` (the dialer reports a host that keeps dropping: EarlyDrop).
   * False when none was up.
   */
  dropped(reason?: unknown): boolean {
    if (!this.drop(reason)) return false;
    this.listeners.emit('close', reason);
    return true;
  }

  /** Ends the link for good: the connection drops, every feed ends, 'close' fires if it was up. Idempotent. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const wasUp = this.drop();
    for (const feed of [...this.feeds]) feed.unsubscribe();
    this.transport.closed?.();
    if (wasUp) this.listeners.emit('close');
  }

  /** Registers a subscription and opens it; on a closed link it fails with LINK_DOWN. */
  subscribe(feed: SessionFeed): Subscription {
    if (this.isClosed) feed.fail(linkDown());
    else {
      this.feeds.add(feed);
      feed.open(false);
    }
    return { unsubscribe: () => feed.unsubscribe() };
  }

  /** The feed ended for good. */
  forget(feed: SessionFeed): void {
    this.feeds.delete(feed);
  }

  /** The host answered a call: it may be the greeting that parked feeds wait for. */
  answer(): void {
    this.answers++;
    for (const feed of [...this.feeds]) feed.unpark();
  }

  private drop(reason?: unknown): boolean {
    const conn = this.conn;
    if (!conn) return false;
    this.conn = undefined;
    conn.alive = false;
    this.transport.sever?.(conn);
    for (const feed of this.feeds) feed.suspend();
    conn.end(reason);
    this.transport.release?.(conn);
    return true;
  }
}

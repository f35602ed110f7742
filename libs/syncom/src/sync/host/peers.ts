import { SyncomError } from '../../errors';
import type { SubscribeOptions } from '../../link/contract';
import type { Feed } from './feed';
import { ByteBudget, SendWindow } from '../protocol/frames';
import type { TokenBucket } from '../protocol/limits';

/** A greeted peer on one connection. */
export interface Session {
  node: string;
  scopes: string[];
  url: string;
  /** The peer as the host established it (limitKey: its token, else its session or connection): what per-peer caps count by. */
  identity?: unknown;
  bucket?: TokenBucket;
  /** Its purgesPerSecond bucket. */
  purges?: TokenBucket;
}

/** What a unit bounds per connection and over all of them. */
export interface PeerBounds {
  maxInFlightFrames: number;
  maxInFlightBytes: number;
  maxConnectionInFlightBytes: number;
  maxFeedsPerConnection: number;
}

/** The answer to a call on a connection whose session ended or never was. */
export const session428 = () => new SyncomError('HELLO_REQUIRED', 'no current hello on this connection: greet again', { status: 428 });

/** Something that holds sessions on connection contexts and can end one. */
interface SessionHolder {
  endSession(context: object): void;
}

/** The units holding a session on each connection context: endHostSessions reaches them all. */
const holders = new WeakMap<object, Set<SessionHolder>>();

/**
 * Ends the session every host unit holds on `context`, as a refused hello
 * does: its feeds end (their subscribers are told 428 HELLO_REQUIRED), its
 * snapshot pagings and streams are dropped, and its next call is answered
 * 428. For transports whose own checks refuse a hello before the unit sees
 * it (a gateway's guards).
 */
export function endHostSessions(context: object): void {
  for (const h of holders.get(context) ?? []) h.endSession(context);
}

/**
 * The per-connection state of a host unit: the session of the last accepted
 * hello, the changes feeds with their subscribers, and the send window, whose
 * bytes count against the unit's shared budget (bounded frames).
 */
export class HostPeers {
  private readonly sessions = new WeakMap<object, Session>();
  private readonly feeds = new Map<object, Map<Feed, SubscribeOptions>>();
  private readonly windows = new WeakMap<object, SendWindow>();
  /** The feeds in `feeds`, counted as they come and go: an unauthenticated GET /health reads it, and listing them cost the host every feed. */
  private live = 0;
  readonly budget: ByteBudget;

  constructor(private readonly owner: SessionHolder, private readonly bounds: PeerBounds) {
    this.budget = new ByteBudget(bounds.maxInFlightBytes);
  }

  /** The connection's session. @throws SyncomError 428 HELLO_REQUIRED when it has none. */
  session(context: object): Session {
    const s = this.sessions.get(context);
    if (!s) throw session428();
    return s;
  }

  /** The connection's session, if it has one. */
  current(context: object): Session | undefined {
    return this.sessions.get(context);
  }

  /** A hello was accepted: its session is the connection's. */
  greet(context: object, session: Session): void {
    this.sessions.set(context, session);
    let set = holders.get(context);
    if (!set) holders.set(context, (set = new Set()));
    set.add(this.owner);
  }

  /** The session ends: its feeds end, each subscriber told 428 so it greets again. */
  end(context: object): void {
    this.sessions.delete(context);
    const feeds = this.feeds.get(context);
    this.feeds.delete(context);
    this.live -= feeds?.size ?? 0;
    for (const [feed, sub] of feeds ?? []) {
      feed.close();
      queueMicrotask(() => sub.onError?.(session428()));
    }
  }

  /** The unit ended: every feed on every connection ends, each subscriber told `error()`. */
  endAll(error: () => Error): void {
    const all = [...this.feeds.values()];
    this.feeds.clear();
    this.live = 0;
    for (const feeds of all) {
      for (const [feed, sub] of feeds) {
        feed.close();
        queueMicrotask(() => sub.onError?.(error()));
      }
    }
  }

  /** The connection went: everything on it ends, silently. */
  disconnect(context: object): void {
    this.sessions.delete(context);
    holders.get(context)?.delete(this.owner);
    // The link is gone: what was out on it is no longer waited for (bounded frames).
    this.windows.get(context)?.close();
    this.windows.delete(context);
    const feeds = this.feeds.get(context);
    this.feeds.delete(context);
    this.live -= feeds?.size ?? 0;
    for (const feed of feeds?.keys() ?? []) feed.close();
  }

  /** The send window of a connection, shared by its feeds and streams. */
  windowOf(context: object): SendWindow {
    let w = this.windows.get(context);
    if (!w || w.closed) {
      const b = this.bounds;
      this.windows.set(context, (w = new SendWindow(b.maxInFlightFrames, { maxBytes: b.maxConnectionInFlightBytes, budget: this.budget })));
    }
    return w;
  }

  /** @throws SyncomError 429 TOO_MANY_FEEDS when the connection holds maxFeedsPerConnection feeds. */
  checkFeedRoom(context: object): void {
    const n = this.feeds.get(context)?.size ?? 0;
    const max = this.bounds.maxFeedsPerConnection;
    if (n >= max) throw new SyncomError('TOO_MANY_FEEDS', `at most ${max} changes feeds per connection`, { status: 429 });
  }

  /** Keeps a live feed of the connection with its subscriber. */
  addFeed(context: object, feed: Feed, sub: SubscribeOptions): void {
    if (feed.closed) return;
    let map = this.feeds.get(context);
    if (!map) this.feeds.set(context, (map = new Map()));
    if (!map.has(feed)) this.live++;
    map.set(feed, sub);
  }

  /** A feed ended: drop it, and the connection's entry once it has none. */
  forget(context: object, feed: Feed | undefined): void {
    const map = this.feeds.get(context);
    if (!map || !feed) return;
    if (map.delete(feed)) this.live--;
    if (map.size === 0) this.feeds.delete(context);
  }

  /** How many feeds are live, without listing them. */
  get feedCount(): number {
    return this.live;
  }

  /** Every live feed. */
  allFeeds(): Feed[] {
    return [...this.feeds.values()].flatMap((m) => [...m.keys()]);
  }
}

import type { Span } from '@opentelemetry/api';
import { SyncomError } from '../errors';
import type { HostUnit, SubscribeOptions, Subscription } from '../link/contract';
import { publicKeyOf, unpackOps } from '../op';
import type { Vector } from '../op/types';
import { applyPeerOps, reportUnpacked } from '../storage/peer';
import type { Storage } from '../storage/storage';
import { ATTRS } from '../telemetry';
import { Feed } from './feed';
import { DEFAULT_MAX_IN_FLIGHT_FRAMES, DEFAULT_PAGE_BYTES, positiveInt, SendWindow } from './frames';
import { checkHello, type Hello } from './hello';
import { checkLimits, type Limits, PeerBuckets, type TokenBucket } from './limits';
import type { SyncManager } from './manager';
import { allowedScopes, opInScope, servedScopes } from './scopes';
import { ReconcileHost } from './reconcile-host';
import { SnapshotPager } from './snapshot';
import { CAPABILITIES, chooseVersion, incompatible } from './versions';

/** storage.sync.unit()'s options (Hosting). */
export interface UnitOptions {
  access?: 'session' | 'public';
  authorize?: (context: object, hello: Hello) => boolean | Promise<boolean>;
  /** Shapes a subscription item; the built-in passes the page as it is, with its event id beside it. */
  tracked?: (data: unknown, eventId: string) => unknown;
  /** Records per snapshot page, ops per changes page (default 500, HOST-5). */
  pageSize?: number;
  /** The most a snapshot or changes page weighs, UTF-8 bytes of its JSON (default 4 MiB, HOST-6); a larger record goes alone. */
  pageBytes?: number;
  /** Frames (changes pages, snapshot stream chunks) out to one peer unacknowledged at once (default 16, issue 6.3). */
  maxInFlightFrames?: number;
  /** The largest push taken, in UTF-8 bytes, told to dialers in hello so their pages fit (default limits.bytesPerPush). */
  pushBytes?: number;
  limits?: Limits;
  meta?: Record<string, unknown>;
  /** The largest reconcile message taken and sent, in UTF-8 bytes (default 512 KiB, RECONCILE.md). */
  reconcileFrame?: number;
  /** The wire versions this unit speaks (default: the storage's, DialOptions.wireVersions). */
  wireVersions?: number[];
}

/** A greeted peer on one connection. */
export interface Session {
  node: string;
  scopes: string[];
  url: string;
  bucket?: TokenBucket;
}

/** The ops of a push's arguments, for its span (the push itself checks them). */
const lengthOf = (args: unknown) => {
  const ops = (args as { ops?: unknown })?.ops;
  return Array.isArray(ops) ? ops.length : 0;
};

const session428 = () => new SyncomError('HELLO_REQUIRED', 'no current hello on this connection: greet again', { status: 428 });

/**
 * The unit of procedures a host mounts (HOST-1): hello, push, changes and
 * snapshot, with reconcile and records (issue 6), over any link. Sessions live on the connection's context object.
 */
export class SyncUnit implements HostUnit {
  readonly access: 'session' | 'public';
  readonly meta?: Record<string, unknown>;
  private readonly sessions = new WeakMap<object, Session>();
  private readonly feeds = new Map<object, Set<Feed>>();
  /** The frames out to each connection (issue 6.3). */
  private readonly windows = new WeakMap<object, SendWindow>();
  private readonly maxInFlight: number;
  private readonly pager: SnapshotPager;
  private readonly pageSize: number;
  private readonly pageBytes: number;
  private readonly buckets: PeerBuckets;
  private readonly recon: ReconcileHost;

  constructor(private readonly storage: Storage, private readonly manager: SyncManager, private readonly o: UnitOptions = {}) {
    this.access = o.access ?? 'session';
    this.meta = o.meta;
    this.pageSize = positiveInt(o.pageSize, 500, 'pageSize');
    this.pageBytes = positiveInt(o.pageBytes, DEFAULT_PAGE_BYTES, 'pageBytes');
    this.maxInFlight = positiveInt(o.maxInFlightFrames, DEFAULT_MAX_IN_FLIGHT_FRAMES, 'maxInFlightFrames');
    this.pager = new SnapshotPager(storage, storage.parts.clock.now);
    this.buckets = new PeerBuckets(o.limits?.opsPerSecond, storage.parts.clock.now);
    this.recon = new ReconcileHost(storage, { pageSize: this.pageSize, pageBytes: this.pageBytes, frameLimit: o.reconcileFrame });
  }

  async call(method: string, args: unknown, context: object): Promise<unknown> {
    const t = this.manager.telemetry;
    if (method === 'hello') return t.hello('host', undefined, (span) => this.hello(args, context, span));
    const s = this.session(context);
    if (method === 'push') return t.push('host', s.node, lengthOf(args), (span) => this.push(args, s, span));
    if (method === 'snapshot') return this.snapshot(args, s);
    if (method === 'reconcile') return t.reconciliation('host', s.node, async () => this.recon.reconcile(args, s.scopes));
    if (method === 'records') return this.recon.records(args, s.scopes);
    throw new SyncomError('UNKNOWN_METHOD', `no procedure ${String(method)}`, { status: 404 });
  }

  subscribe(method: string, args: unknown, context: object, options: SubscribeOptions): Subscription {
    try {
      if (method !== 'changes') throw new SyncomError('UNKNOWN_METHOD', `no subscription ${String(method)}`, { status: 404 });
      return this.changes(args, this.session(context), context, options);
    } catch (e) {
      queueMicrotask(() => options.onError?.(e));
      return { unsubscribe: () => undefined };
    }
  }

  stream(id: string, context: object): AsyncIterable<Uint8Array> {
    return this.pager.stream(id, this.windowOf(context));
  }

  disconnect(context: object): void {
    this.sessions.delete(context);
    // The link is gone: what was out on it is no longer waited for (issue 6.3).
    this.windows.get(context)?.close();
    this.windows.delete(context);
    for (const f of this.feeds.get(context) ?? []) f.close();
    this.feeds.delete(context);
  }

  /** Every live changes feed (LIFE-5). */
  hosted(): { node: string; scopes: string[]; since: number; cursor: string }[] {
    return [...this.feeds.values()].flatMap((set) => [...set].map((f) => ({ ...f.info })));
  }

  /** The send window of a connection, shared by its feeds and streams. */
  private windowOf(context: object): SendWindow {
    let w = this.windows.get(context);
    if (!w || w.closed) this.windows.set(context, (w = new SendWindow(this.maxInFlight)));
    return w;
  }

  private session(context: object): Session {
    const s = this.sessions.get(context);
    if (!s) throw session428();
    return s;
  }

  private async hello(args: unknown, context: object, span: Span): Promise<unknown> {
    const hello = checkHello(args);
    span.setAttribute(ATTRS.peer, hello.node);
    const ctx = context as { session?: unknown };
    if (this.access === 'session' && !ctx.session) throw new SyncomError('UNAUTHORIZED', 'this host needs an authenticated session', { status: 401 });
    if (this.manager.signatures === 'require' && !publicKeyOf(hello.node)) {
      throw new SyncomError('UNSIGNED', 'this host requires signatures and the node id is no key', { status: 403 });
    }
    let ok = true;
    try { ok = this.o.authorize ? (await this.o.authorize(context, hello)) !== false : true; } catch { ok = false; }
    if (!ok) throw new SyncomError('UNAUTHORIZED', 'authorize refused the hello', { status: 401 });
    const ours = this.o.wireVersions ?? this.manager.wireVersions;
    const version = chooseVersion(ours, hello.versions);
    if (version === undefined) {
      this.sessions.delete(context);
      this.manager.incompatible(hello.node, hello.versions);
      throw incompatible(ours, hello.versions);
    }
    const url = `peer:${hello.node}`;
    this.sessions.set(context, { node: hello.node, scopes: hello.scopes, url, bucket: this.buckets.for(hello.node) });
    this.manager.greeted(hello);
    const log = this.storage.parts.log;
    return { node: this.storage.id, vector: log.vector, epoch: log.epoch, floor: log.floor, schema: this.manager.helloSchema(),
      version, versions: [...ours], caps: [...CAPABILITIES], reconcileFrame: this.recon.frameLimit, ...this.pushBytes() };
  }

  /** What a dialer's push pages must fit in, when this unit knows (hello's `pushBytes`). */
  private pushBytes(): { pushBytes?: number } {
    const n = this.o.pushBytes ?? this.o.limits?.bytesPerPush;
    return n !== undefined && Number.isSafeInteger(n) && n > 0 ? { pushBytes: n } : {};
  }

  private async push(args: unknown, s: Session, span: Span): Promise<unknown> {
    const raw = (args as { ops?: unknown })?.ops;
    if (!Array.isArray(raw)) throw new SyncomError('BAD_REQUEST', 'push takes { ops: [...] }', { status: 400 });
    const limited = checkLimits(this.o.limits, raw, s.bucket);
    if (limited) {
      this.manager.limited(limited.code, s.node);
      throw limited;
    }
    const unpacked = unpackOps(raw);
    const { ops, malformed } = unpacked;
    reportUnpacked(this.storage, unpacked, s.url);
    const allowed = allowedScopes(s.scopes);
    const scoping = { scopeOf: (id: string, d: Record<string, unknown>) => this.storage.scopeFor(id, d), lastScope: (id: string) => this.storage.scopes.get(id) };
    const res = await applyPeerOps(this.storage, ops, {
      via: { url: s.url, node: s.node },
      signatures: this.manager.signatures,
      inScope: (op, entry) => opInScope(op, entry, allowed, scoping),
    });
    if (res.refused) throw Object.assign(res.refused, { status: 503 });
    this.manager.telemetry.pageApplied(span, { role: 'host', peer: s.node }, res, malformed);
    for (const [reason, count] of [['scope', res.outOfScope], ['forged', res.forged], ['unsigned', res.unsigned]] as const) {
      if (count) this.manager.refused({ node: s.node, reason, count });
    }
    const { touched, errors: _e, refused: _r, skew: _s, invalid: _i, ...counts } = res;
    return { ...counts, malformed: counts.malformed + malformed, vector: touched as Vector };
  }

  private snapshot(args: unknown, s: Session): Promise<unknown> {
    const a = (args ?? {}) as { token?: unknown; offset?: unknown; stream?: unknown; scopes?: unknown };
    const offset = Number.isSafeInteger(a.offset) ? (a.offset as number) : 0;
    return this.manager.telemetry.snapshotPage({ role: 'host', peer: s.node, offset }, async (span) => {
      const page = this.pager.page(a, servedScopes(a.scopes, s.scopes), this.pageSize, this.pageBytes);
      span.setAttribute(ATTRS.entries, page.count);
      return page;
    });
  }

  /** A feed ended: drop it, and the connection's entry once it has none. */
  private forget(context: object, set: Set<Feed>, feed: Feed | undefined): void {
    if (feed) set.delete(feed);
    if (set.size === 0 && this.feeds.get(context) === set) this.feeds.delete(context);
  }

  private changes(args: unknown, s: Session, context: object, options: SubscribeOptions): Subscription {
    const scopes = servedScopes((args as { scopes?: unknown })?.scopes, s.scopes);
    const log = this.storage.parts.log;
    const at = log.cursor(options.lastEventId);
    const track = this.o.tracked ?? ((d: unknown) => d);
    if (!at.ok) {
      queueMicrotask(() => void options.onData(track({ bootstrap: true, reason: at.reason }, ''), undefined));
      return { unsubscribe: () => undefined };
    }
    const set = this.feeds.get(context) ?? new Set<Feed>();
    let feed: Feed | undefined;
    feed = new Feed({
      storage: this.storage, node: s.node, scopes, from: at.pos, pageSize: this.pageSize, pageBytes: this.pageBytes,
      window: this.windowOf(context), now: this.storage.parts.clock.now(),
      send: (page, eventId) => options.onData(track(page, eventId), eventId),
      bootstrap: () => void options.onData(track({ bootstrap: true, reason: 'floor' }, ''), undefined),
      ended: () => this.forget(context, set, feed),
    });
    if (!feed.closed) this.feeds.set(context, set.add(feed));
    const live = feed;
    return { unsubscribe: () => live.close() };
  }
}

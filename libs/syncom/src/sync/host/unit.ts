import type { Span } from '@opentelemetry/api';
import { SyncomError } from '../../errors';
import type { HostUnit, SubscribeOptions, Subscription } from '../../link/contract';
import { publicKeyOf, unpackOps } from '../../op';
import type { Op, Vector } from '../../op/types';
import type { Entry } from '../../crdt';
import type { Replica } from '../../storage/replica';
import { ATTRS } from '../../telemetry';
import { Feed } from './feed';
import { trackedFeed } from './tracked';
import { unitBounds, type UnitBoundOptions } from './unit-bounds';
import { checkedHello, type Hello } from '../protocol/hello';
import { helloProven, newChallenge, unproven } from '../protocol/hello-proof';
import { vectorAnswer } from './vector-delta';
import { HostPeers, type Session, session428 } from './peers';
import { SharedReads, sharedTrack } from './shared-pages';
import { type Authorized, checkLimits, judgeBudget, judgeHello, limitKey, PeerBuckets } from '../protocol/limits';
import type { SyncContext } from '../context';
import { allowedScopes, opInScope, servedScopes } from '../protocol/scopes';
import { ReconcileHost } from './reconcile-host';
import { SnapshotPager } from './snapshot';
import { CAPABILITIES, chooseVersion, incompatible } from '../protocol/versions';

/** storage.sync.unit()'s options (Hosting); the bounds unitBounds checks are UnitBoundOptions'. */
export interface UnitOptions extends UnitBoundOptions {
  access?: 'session' | 'public';
  /**
   * Gates hello: `true` admits; a non-empty string admits and names the peer's identity, which its
   * rate buckets and paging caps are keyed by (else the token it judged); anything else refuses (401).
   */
  authorize?: (context: object, hello: Hello) => Authorized | Promise<Authorized>;
  /** Shapes a subscription item; the built-in passes the page as it is, with its event id beside it. */
  tracked?: (data: unknown, eventId: string) => unknown;
  /** The largest push taken, in UTF-8 bytes, told to dialers in hello so their pages fit (default limits.bytesPerPush). */
  pushBytes?: number;
  /**
   * Refuse (outOfScope) a pushed op, from any peer, whose declared scope is not the one this
   * host's sync.scope gives its record (default false). Feeds serve ops by their declared scope:
   * turn this on where peers are granted less than '*', so a writer with another scope rule
   * cannot reach subscribers of scopes its records are not in.
   */
  exactScopes?: boolean;
  meta?: Record<string, unknown>;
  /** The largest reconcile message taken and sent, in UTF-8 bytes (default 512 KiB, RECONCILE.md). */
  reconcileFrame?: number;
  /** The wire versions this unit speaks (default: the storage's, DialOptions.wireVersions). */
  wireVersions?: number[];
  /**
   * Hold every peer to proving its node id at hello (default false, SIG-26):
   * a hello without a signature of this connection's challenge by the key
   * its node id names is refused 401 UNPROVEN with a fresh challenge, which
   * syncom's dialers sign and greet again with. `authorize`, `beforeApply`'s
   * `peer.node` and the `hello` event then name a node that holds its key.
   */
  proveNodes?: boolean;
}

export type { Session } from './peers';

/** The ops of a push's arguments, for its span (the push itself checks them). */
const lengthOf = (args: unknown) => {
  const ops = (args as { ops?: unknown })?.ops;
  return Array.isArray(ops) ? ops.length : 0;
};

/** The answer of a unit whose storage closed: for good, unlike a session's 428, so a dialer reports it rather than greeting again. */
const closed = () => new SyncomError('CLOSED', 'this host\'s storage is closed: it serves nothing more');

/** A stream that fails at its first read. */
const refused = (error: Error): AsyncIterable<Uint8Array> => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }) });

/**
 * The unit of procedures a host mounts (HOST-1): hello, push, changes and
 * snapshot, with reconcile and records, over any link. Sessions live on the connection's context object.
 */
export class SyncUnit implements HostUnit {
  readonly access: 'session' | 'public';
  readonly meta?: Record<string, unknown>;
  private readonly peers: HostPeers;
  private readonly pager: SnapshotPager;
  private readonly pageSize: number;
  private readonly pageBytes: number;
  private readonly authorizeTimeout: number;
  private readonly buckets: PeerBuckets;
  private readonly purgeBuckets: PeerBuckets;
  private readonly recon: ReconcileHost;
  private readonly replica: Replica;
  /** Feeds at one position of one scope set read the log once and send the same pages (the fan-out encoded once). */
  private readonly reads = new SharedReads();
  /** Stops the scrub listener that lets go of the reads a purge made stale. */
  private readonly unscrub: () => void;
  /** The challenge each connection was last sent (proveNodes), used once. */
  private readonly challenges = new WeakMap<object, string>();
  /** Each connection's turn, moved by every hello, session end and disconnect: a hello judged after it moved on grants nothing. */
  private readonly turns = new WeakMap<object, number>();
  private readonly track: (data: unknown, eventId: string) => unknown;
  private ended = false;
  /** Rejects once the unit ends: a stream waiting for its peer's acks stops there. */
  private readonly ending: Promise<never>;
  /** Aborted as the unit ends: a push waiting on beforeApply is let go, answered CLOSED, nothing of it taken. */
  private readonly ends = new AbortController();

  constructor(private readonly ctx: SyncContext, private readonly o: UnitOptions = {}) {
    // First: the options are checked before anything reads them (unit(null) had failed with a TypeError).
    const b = unitBounds(o);
    this.replica = ctx.replica;
    this.track = sharedTrack(o.tracked);
    this.access = o.access ?? 'session';
    this.meta = o.meta;
    this.pageSize = b.pageSize;
    this.pageBytes = b.pageBytes;
    this.authorizeTimeout = b.authorizeTimeout;
    this.peers = new HostPeers(this, b.peers);
    this.pager = new SnapshotPager(this.replica, () => this.replica.now(), b.pagings);
    this.buckets = new PeerBuckets(o.limits?.opsPerSecond, () => this.replica.now());
    this.purgeBuckets = new PeerBuckets(o.limits?.purgesPerSecond, () => this.replica.now(), undefined, true);
    this.recon = new ReconcileHost(this.replica, { pageSize: this.pageSize, pageBytes: this.pageBytes, frameLimit: o.reconcileFrame });
    this.ending = new Promise<never>((_, reject) => this.ends.signal.addEventListener('abort', () => reject(closed())));
    this.ending.catch(() => undefined);
    this.unscrub = this.replica.onScrub(() => this.reads.dropStale());
  }

  /** Whether the unit ended (its storage closed): every call, subscription and stream is answered CLOSED. */
  get isClosed(): boolean {
    return this.ended || this.replica.isClosed;
  }

  /**
   * End the unit, as its storage closes: every feed ends (its subscriber told
   * CLOSED), every paging and stream is dropped, and every later call,
   * subscription or stream read is answered CLOSED. A push that passed this gate before
   * is committed, or refused CLOSED by the storage's pipeline (let go, if beforeApply had not answered).
   */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.peers.endAll(closed);
    this.pager.clear();
    this.unscrub();
    this.ends.abort();
  }

  async call(method: string, args: unknown, context: object): Promise<unknown> {
    if (this.isClosed) throw closed();
    const t = this.ctx.telemetry;
    if (method === 'hello') return t.hello('host', undefined, (span) => this.hello(args, context, span));
    const s = this.peers.session(context);
    if (method === 'push') return t.push('host', s.node, lengthOf(args), (span) => this.push(args, s, span));
    if (method === 'snapshot') return this.snapshot(args, s, context);
    if (method === 'reconcile') return t.reconciliation('host', s.node, async () => this.recon.reconcile(args, s.scopes));
    if (method === 'records') return this.recon.records(args, s.scopes);
    throw new SyncomError('UNKNOWN_METHOD', `no procedure ${String(method)}`, { status: 404 });
  }

  subscribe(method: string, args: unknown, context: object, options: SubscribeOptions): Subscription {
    try {
      if (this.isClosed) throw closed();
      if (method !== 'changes') throw new SyncomError('UNKNOWN_METHOD', `no subscription ${String(method)}`, { status: 404 });
      return this.changes(args, this.peers.session(context), context, options);
    } catch (e) {
      queueMicrotask(() => options.onError?.(e));
      return { unsubscribe: () => undefined };
    }
  }

  stream(id: string, context: object): AsyncIterable<Uint8Array> {
    if (this.isClosed) return refused(closed());
    const session = this.peers.current(context);
    if (!session) return refused(session428());
    return this.untilClosed(this.pager.stream(id, { window: this.peers.windowOf(context), owner: { context, session, identity: session.identity } }), context, session);
  }

  /** The stream's chunks while the unit lives (CLOSED, even while a chunk waits for acks) and `session` stands (428: a chunk read after a re-hello is not sent). */
  private async *untilClosed(chunks: AsyncIterable<Uint8Array>, context: object, session: Session): AsyncIterable<Uint8Array> {
    const it = chunks[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await Promise.race([it.next(), this.ending]);
        if (next.done) return;
        if (this.peers.current(context) !== session) throw session428();
        yield next.value;
      }
    } finally {
      // Frees the chunk's window slot; a read still waiting for one ends with its window.
      void it.return?.()?.catch(() => undefined);
    }
  }

  disconnect(context: object): void {
    this.nextTurn(context);
    this.peers.disconnect(context);
    this.pager.release(context);
  }

  /**
   * Ends the connection's session, as a refused hello does: its feeds end
   * (their subscribers are told 428 HELLO_REQUIRED), its snapshot pagings and
   * streams are dropped, and its next call is answered 428.
   */
  endSession(context: object): void {
    this.nextTurn(context);
    const s = this.peers.current(context);
    this.peers.end(context);
    if (s) this.pager.release(context, s);
  }

  /** Who the peer greeted on `context` is for its limits (limitKey, as its hello established it); undefined without a session. */
  identityOf(context: object): string | object | undefined {
    return this.peers.current(context)?.identity as string | object | undefined;
  }

  /** Every live changes feed (LIFE-5). */
  hosted(): { node: string; scopes: string[]; since: number; cursor: string }[] {
    return this.peers.allFeeds().map((f) => ({ ...f.info }));
  }

  /** What this unit holds for its peers now: bytes of frames out unacknowledged, open pagings and streams, live feeds. */
  usage(): { inFlightBytes: number; pagings: number; streams: number; feeds: number } {
    return { inFlightBytes: this.peers.budget.inFlight, ...this.pager.open, feeds: this.peers.feedCount };
  }

  /**
   * A hello first ends the connection's earlier session, whatever its own
   * outcome: a refused one must not leave the old grant in place, and an
   * accepted one starts afresh.
   */
  private async hello(args: unknown, context: object, span: Span): Promise<unknown> {
    this.endSession(context);
    return this.greet(args, context, span, this.turns.get(context));
  }

  private nextTurn = (context: object): unknown => this.turns.set(context, (this.turns.get(context) ?? 0) + 1);

  private async greet(args: unknown, context: object, span: Span, turn: number | undefined): Promise<unknown> {
    // A gateway that read the envelope with checkHello hands that hello on: it is not read again.
    const hello = checkedHello(args);
    span.setAttribute(ATTRS.peer, hello.node);
    const ctx = context as { session?: unknown };
    if (this.access === 'session' && !ctx.session) throw new SyncomError('UNAUTHORIZED', 'this host needs an authenticated session', { status: 401 });
    if (this.ctx.signatures === 'require' && !publicKeyOf(hello.node)) {
      throw new SyncomError('UNSIGNED', 'this host requires signatures and the node id is no key', { status: 403 });
    }
    // Only true turns it on, as exactScopes is read: unitBounds refused any value but a boolean.
    if (this.o.proveNodes === true) await this.proven(hello, context);
    const verdict = await judgeHello(this.o.authorize, context, hello, this.authorizeTimeout);
    // What changed while authorize judged: a session granted now would outlive its storage, its connection or a later hello.
    if (this.isClosed) throw closed();
    if (this.turns.get(context) !== turn) throw session428();
    if (!verdict.ok) throw new SyncomError('UNAUTHORIZED', 'authorize refused the hello', { status: 401 });
    const ours = this.o.wireVersions ?? this.ctx.wireVersions;
    const version = chooseVersion(ours, hello.versions);
    if (version === undefined) {
      this.ctx.incompatible(hello.node, hello.versions);
      throw incompatible(ours, hello.versions);
    }
    const url = `peer:${hello.node}`;
    const key = limitKey(context, hello.token, this.o.authorize !== undefined, verdict.identity);
    this.peers.greet(context, { node: hello.node, scopes: hello.scopes, url, identity: key, bucket: this.buckets.for(key), purges: this.purgeBuckets.for(key) });
    this.ctx.greeted(hello);
    const log = this.replica;
    const v = vectorAnswer(log, hello.vectorSince, hello.scopes);
    return { node: this.replica.id, vector: v.vector, vectorMark: v.mark, ...(v.since !== undefined && { vectorSince: v.since }),
      epoch: log.epoch, floor: log.floor, schema: this.ctx.helloSchema(),
      version, versions: [...ours], caps: [...CAPABILITIES], reconcileFrame: this.recon.frameLimit, ...this.pushBytes() };
  }

  /**
   * The hello's node id is proven on this connection: its proof signs the
   * challenge this connection was last sent, by that id's key. A challenge is
   * used once, whatever the outcome; a hello without a valid proof is refused
   * with a fresh one. An id that is no key can never prove itself.
   *
   * @throws SyncomError UNPROVEN 401.
   */
  private async proven(hello: Hello, context: object): Promise<void> {
    if (!publicKeyOf(hello.node)) throw unproven('the node id is no Ed25519 key');
    const challenge = this.challenges.get(context);
    this.challenges.delete(context);
    if (challenge !== undefined && hello.proof !== undefined && (await helloProven(hello.node, challenge, hello.proof))) return;
    const fresh = newChallenge();
    this.challenges.set(context, fresh);
    throw unproven(hello.proof === undefined ? 'sign the challenge and greet again with it as proof' : 'the proof does not sign this connection\'s challenge with the node\'s key', fresh);
  }

  /** What a dialer's push pages must fit in, when this unit knows (hello's `pushBytes`). */
  private pushBytes(): { pushBytes?: number } {
    const n = this.o.pushBytes ?? this.o.limits?.bytesPerPush;
    return n !== undefined && Number.isSafeInteger(n) && n > 0 ? { pushBytes: n } : {};
  }

  private async push(args: unknown, s: Session, span: Span): Promise<unknown> {
    const raw = (args as { ops?: unknown })?.ops;
    if (!Array.isArray(raw)) throw new SyncomError('BAD_REQUEST', 'push takes { ops: [...] }', { status: 400 });
    const limited = checkLimits(this.o.limits, raw, s.bucket, s.purges);
    if (limited) {
      this.ctx.limited(limited.code, s.node);
      throw limited;
    }
    const unpacked = unpackOps(raw);
    const { ops, malformed } = unpacked;
    this.replica.reportUnpacked(unpacked, s.url);
    const allowed = allowedScopes(s.scopes);
    const exact = this.o.exactScopes === true;
    const scoping = { scopeOf: (id: string, d: Record<string, unknown>) => this.replica.scopeFor(id, d), lastScope: (id: string) => this.replica.lastScope(id) };
    // A session that may write every scope, with no exact scopes, passes every op: no boundary to walk
    // (the walk applies each op once more to judge the page's later ops, CPU on the ingest path for nothing).
    const bounded = allowed !== 'all' || exact;
    // A type change judged anew costs the record's size: charged to the peer's rate (docs/security.md).
    const budget = s.bucket && judgeBudget(s.bucket, this.o.limits?.opsPerSecond ?? 0);
    const res = await this.replica.applyPage(ops, {
      via: { url: s.url, node: s.node }, signal: this.ends.signal,
      signatures: this.ctx.signatures, ...(budget && { budget }),
      ...(bounded && { inScope: (op: Op, entry: Entry | undefined, after?: Entry) => opInScope(op, entry, allowed, scoping, exact, after) }),
    });
    if (res.refused) throw Object.assign(res.refused, { status: 503 });
    if (res.limited) {
      // What the page took before the type change its rate could not pay for is counted once, here; what it
      // refused comes again with the rest of the page, and is counted when that is taken.
      this.ctx.telemetry.pageApplied(span, { role: 'host', peer: s.node }, { ...res, forged: 0, unsigned: 0, malformed: 0, skew: 0, outOfScope: 0 });
      this.ctx.limited(res.limited.code, s.node);
      throw res.limited;
    }
    this.ctx.telemetry.pageApplied(span, { role: 'host', peer: s.node }, res, malformed);
    for (const [reason, count] of [['scope', res.outOfScope], ['forged', res.forged], ['unsigned', res.unsigned]] as const) {
      if (count) this.ctx.refused({ node: s.node, reason, count });
    }
    const { touched, errors: _e, refused: _r, limited: _l, skew: _s, invalid: _i, ...counts } = res;
    return { ...counts, malformed: counts.malformed + malformed, vector: touched as Vector };
  }

  private snapshot(args: unknown, s: Session, context: object): Promise<unknown> {
    const a = (args ?? {}) as { token?: unknown; offset?: unknown; stream?: unknown; scopes?: unknown };
    const offset = Number.isSafeInteger(a.offset) ? (a.offset as number) : 0;
    return this.ctx.telemetry.snapshotPage({ role: 'host', peer: s.node, offset }, async (span) => {
      const limits = { size: this.pageSize, maxBytes: this.pageBytes };
      const page = this.pager.page(a, servedScopes(a.scopes, s.scopes), limits, { context, session: s, identity: s.identity });
      span.setAttribute(ATTRS.entries, page.count);
      return page;
    });
  }

  private changes(args: unknown, s: Session, context: object, options: SubscribeOptions): Subscription {
    const scopes = servedScopes((args as { scopes?: unknown })?.scopes, s.scopes);
    const log = this.replica;
    const at = log.cursor(options.lastEventId);
    const { notice, send } = trackedFeed(this.track, options);
    if (!at.ok) {
      queueMicrotask(() => notice(at.reason));
      return { unsubscribe: () => undefined };
    }
    this.peers.checkFeedRoom(context);
    let feed: Feed | undefined;
    feed = new Feed({
      replica: this.replica, node: s.node, scopes, from: at.pos, cursor: String(options.lastEventId), pageSize: this.pageSize, pageBytes: this.pageBytes, shared: this.reads,
      window: this.peers.windowOf(context), now: this.replica.now(),
      send,
      bootstrap: () => notice('floor'),
      ended: () => this.peers.forget(context, feed),
      failed: (e) => options.onError?.(new SyncomError('INTERNAL', `the changes feed failed (${(e as Error)?.message}): subscribe again`, { status: 500, cause: e })),
    });
    this.peers.addFeed(context, feed, options);
    const live = feed;
    return { unsubscribe: () => live.close() };
  }
}

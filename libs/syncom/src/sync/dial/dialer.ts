import { SyncomError } from '../../errors';
import type { LinkEvent, SyncLink } from '../../link/contract';
import type { Op, Vector } from '../../op/types';
import { ackHello } from './dialer-push';
import { Outbound } from './outbound';
import { DialerFeed } from './dialer-feed';
import { baseFor, dialedSelf, sendHello, type VectorBase, wholeVector } from './dialer-hello';
import type { SyncContext } from '../context';
import type { NodeRecord } from './registry';
import { HostLag } from './host-lag';
import { allowedFor, type allowedScopes } from '../protocol/scopes';
import { ownStreamChecks } from './own-streams';
import { RECONCILE_CAP } from '../protocol/versions';
import { antiEntropyTimer, HAVE_PAGES_PER_RUN, type LoggedHaves, type ReconcileRun, ReconcileTurns } from './anti-entropy';
import { type Recoverable, Recovery } from './recovery';
import { urlLabel } from '../../telemetry/url-label';
import { closeLink, stoppable } from './link-close';

/**
 * Where a dialer stands with its host: 'down' (no link yet, or it closed),
 * 'greeted' (a hello was answered on this link), 'regreeting' (the link is up
 * but the host asked for a fresh hello, 428), 'stopped' (removed, disabled or
 * closed: for good, nothing more is sent or taken).
 */
export type DialPhase = 'down' | 'greeted' | 'regreeting' | 'stopped';

/**
 * The dialing side of one registered node (Protocol): hello then push, the
 * changes subscription resumed from the saved cursor, bootstrap, recovery.
 * Pushes take turns on one chain (LIFE-21).
 */
export class Dialer implements Recoverable {
  link?: SyncLink;
  private phase: DialPhase = 'down';
  behind = false;
  lastError: SyncomError | null = null;
  hv: Vector = {};
  /** The host's vector as of its last hello answer, whole, and that answer's mark: the next hello asks only for what changed since. */
  private vectorBase?: VectorBase;
  /** Pages of a snapshot are being joined (peers() says so: the vector may already look caught up). */
  bootstrapping = false;
  /** The host's capabilities from its last hello answer. */
  caps: string[] = [];
  /** Whether the host shares a wire version with this node: unknown until a hello is answered (wire versions). */
  private shares: boolean | undefined;
  /** What the host's hello said it takes: the largest reconcile message and push, in bytes (absent: it did not say). */
  private takes: { frame?: number; pushBytes?: number } = {};
  private chain: Promise<unknown> = Promise.resolve();
  private antiEntropy?: NodeJS.Timeout;
  /** The merges anti-entropy logged for this host (LoggedHaves). */
  private readonly haves: LoggedHaves = new Map();
  private readonly out = new Outbound(this);
  private readonly feed = new DialerFeed(this);
  readonly recovery = new Recovery(this);
  private readonly runs = new ReconcileTurns(this);
  private readonly listeners: [LinkEvent, () => void][] = [['close', (why?: unknown) => this.onClose(why)], ['reconnect', () => void this.handshake(true)]];
  private readonly onAppend = (from: number, to: number) => this.out.relay(from, to);
  /** Who waits on inSync() (synced()): told whenever what it reads may have changed. */
  private readonly watchers = new Set<() => void>();
  /** incoming and the lag, kept as the keys they read move: they are read after every page. */
  private readonly lag: HostLag;

  constructor(readonly ctx: SyncContext, readonly rec: NodeRecord) {
    const log = ctx.replica;
    this.lag = new HostLag({ log, theirs: () => this.hv, self: log.id, host: () => rec.remote.id ?? '', scopes: () => rec.scopes, allowed: () => this.allowed() });
  }

  /** The link is up and was greeted on (a fresh hello may be due). */
  get connected(): boolean {
    return this.phase === 'greeted' || this.phase === 'regreeting';
  }

  /** Stopped for good (removed, disabled, closed): nothing more is sent or taken. */
  get stopped(): boolean {
    return this.phase === 'stopped';
  }

  /** A hello was answered on the live link (and no fresh one is due). */
  get greeted(): boolean {
    return this.phase === 'greeted';
  }

  private get replica() { return this.ctx.replica; }
  private get pageSize() { return this.ctx.options.pageSize ?? 500; }
  get pushBytes() { return this.takes.pushBytes; }

  /** Connect, greet, subscribe (PROTO-2). */
  async start(): Promise<void> {
    try {
      const ok = (await this.ctx.options.hooks?.beforeConnect?.(structuredClone(this.rec))) ?? true;
      if (!ok || this.stopped) return;
      const link = await (this.ctx.options.connect as NonNullable<typeof this.ctx.options.connect>)(structuredClone(this.rec));
      if (this.stopped) return link.close();
      this.link = stoppable(link);
      for (const [ev, l] of this.listeners) link.on(ev, l);
      this.ctx.events.emit('connect', { url: this.rec.url });
      this.replica.onAppend(this.onAppend);
      await this.handshake(false);
    } catch (e) {
      this.recovery.fail(e);
      if (!this.link) this.recovery.dialLater(() => void this.start());
    }
  }

  /** Close the link at once (REG-3, LIFE-2). */
  async stop(): Promise<void> {
    const was = this.connected;
    this.phase = 'stopped';
    this.recovery.stop();
    clearInterval(this.antiEntropy);
    this.replica.offAppend(this.onAppend);
    this.feed.close();
    if (this.link) {
      closeLink(this.link, this.listeners, this.rec.url, (e) => this.report(e));
      if (was) this.emitPeer(false, false);
    }
    await this.chain.catch(() => undefined);
    await this.feed.idle();
  }

  state() {
    const r = this.rec;
    // The link's feed waits through a drop to resume, but no page can come until it is back: not subscribed meanwhile.
    return {
      url: r.url, node: r.remote.id, connected: this.connected, subscribed: this.connected && this.feed.subscribed, cursor: r.cursor, lastSync: r.lastSync,
      // An op the host cannot take for its size is not delivered there: the peer shows behind while it lacks it.
      pending: this.out.pending, behind: this.behind || this.out.lagging(), stuck: this.feed.stuck, lastError: this.lastError,
      bootstrapping: this.bootstrapping, incompatible: this.shares === false, incoming: this.connected ? this.lag.incoming() : null,
    };
  }

  /**
   * Whether this node and the host hold each other's ops as far as the host's last answer
   * tells: greeted and subscribed (the host answered the subscription: a feed opened with no
   * cursor is answered by a bootstrap), no page being taken, no bootstrap running, nothing queued, refused or stuck,
   * nothing of the host's missing here and nothing of ours missing there, and not while the host keeps dropping
   * connections soon after they come (Recovery.flapping).
   */
  inSync(): boolean {
    const s = this.state();
    if (!s.connected || !s.subscribed || !this.feed.settled || s.bootstrapping || s.pending > 0 || s.behind || s.stuck || s.incoming !== 0 || this.recovery.flapping) return false;
    return this.hostLag() === 0;
  }

  /** This node's ops the host lacks by its vector (vectorLag), kept as a running sum (HostLag). */
  hostLag = (): number => this.lag.lag();

  /** Call `fn` whenever what inSync() reads may have changed; returns the way to stop. */
  watch(fn: () => void): () => void {
    this.watchers.add(fn);
    return () => void this.watchers.delete(fn);
  }

  /** What inSync() reads may have changed: a turn ended, a page was taken, a failure was handled, the link closed. */
  changed(): void {
    if (this.watchers.size === 0) return;
    for (const w of [...this.watchers]) w();
  }

  /** Take a turn on the push chain; its end is a change (the outbox, behind, hv). */
  turn<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.catch(() => undefined).then(fn);
    this.chain = next.catch(() => undefined).then(() => this.changed());
    return next;
  }

  /** A turn on the push chain whose failure goes to failed(). */
  guarded(fn: () => Promise<void>): Promise<void> {
    return this.turn(() => fn().catch((e: unknown) => this.failed(e)));
  }

  /**
   * hello then push what the host lacks (PROTO-4, PROTO-5, PROTO-13). A hello
   * lost on a link that stays up (LINK_TIMEOUT), or answered 429 or 5xx, is
   * sent again backed off (Recovery.greetFailed): a link that does not
   * reconnect after such a call left the dialer ungreeted for good, with
   * sync() and anti-entropy doing nothing.
   */
  handshake(reconnected: boolean, unlessGreeted = false): Promise<void> {
    if (reconnected) this.recovery.reconnected();
    return this.turn(async () => {
      if (this.stopped || !this.link || (unlessGreeted && this.greeted)) return;
      try {
        await this.hello(reconnected);
        if (this.stopped) return;
        await this.pushLacking();
      } catch (e) {
        await this.failed(e);
        this.recovery.greetFailed(e);
      }
      this.resume();
    });
  }

  /**
   * Open the subscription once greeted when none runs: at the first greeting
   * (a first hello that failed must not leave the dialer deaf to this host),
   * or after the host ended the last one — a feed error, or a new hello that
   * ended the session the feed belonged to.
   */
  resume(): void {
    if (this.greeted && !this.feed.stuck && !this.bootstrapping && !this.feed.running) this.feed.subscribe(this.rec.cursor);
  }

  async hello(reconnected: boolean): Promise<void> {
    const { replica, rec } = this;
    const scopes = rec.scopes;
    const base = baseFor(this.vectorBase, scopes);
    const said = await sendHello(this.ctx, this.link as SyncLink, rec, base);
    if (!said.ok) return this.incompatible(said.versions);
    const { ans } = said;
    const whole = wholeVector(ans, base, scopes);
    this.vectorBase = whole.base;
    const self = dialedSelf(this.ctx, ans, rec.url);
    if (self) return this.selfDialed(self);
    this.shares = true;
    [this.caps, this.takes] = [ans.caps, { frame: ans.reconcileFrame, pushBytes: ans.pushBytes }];
    this.out.greeted();
    this.antiEntropy ??= antiEntropyTimer(this.ctx.options.antiEntropyInterval, () => void this.reconcile());
    this.hv = { ...whole.vector };
    this.lag.reset();
    rec.remote = { id: ans.node, epoch: ans.epoch, schema: ans.schema };
    if (this.phase !== 'stopped') this.phase = 'greeted';
    this.recovery.greeted();
    this.feed.greeted();
    this.ctx.checkDrift(ans.node, ans.schema);
    const checks = await ownStreamChecks(replica, this.hv, rec.url, allowedFor(scopes));
    for (const e of checks.errors) this.report(e);
    if (checks.rewound) rec.cursor = null;
    this.ack();
    await this.save();
    this.emitPeer(true, reconnected);
    if (checks.rewound && this.feed.opened) this.feed.subscribe(null);
  }

  /** No shared wire version: say so and stop dialing — no retry loop — until added or enabled again, or a restart. */
  private incompatible(versions: number[]): void {
    this.shares = false;
    this.lastError = new SyncomError('INCOMPATIBLE', `${urlLabel(this.rec.url)} shares no wire version with this node`, { status: 426, url: this.rec.url, versions });
    this.ctx.incompatible(this.rec.url, versions);
    void this.stop();
  }

  /** This url is this node itself: report it and stop for good, nothing pushed, subscribed or bootstrapped. */
  private selfDialed(e: SyncomError): void {
    this.report(e);
    void this.stop();
  }

  private emitPeer(connected: boolean, reconnected: boolean): void {
    this.ctx.events.emit('peer', { url: this.rec.url, connected, node: this.rec.remote.id, reconnected, schema: this.rec.remote.schema });
  }

  /** The scopes this node was registered with, as a set (recomputed when addNode changes them). */
  allowed(): ReturnType<typeof allowedScopes> {
    return allowedFor(this.rec.scopes);
  }

  /** These keys of the host's vector may have moved: its lag is summed again there (HostLag). */
  moved(keys: Iterable<string>): void {
    this.lag.moved(keys);
  }

  /** Push every op the host lacks by its vector, from the whole retained log; `all`: the held ones too (Outbound). */
  pushLacking(all = false): Promise<void> {
    return this.out.pushLacking(all);
  }

  /** A page from the host or an op to relay: what the host lacks goes, paced (Outbound.signOfLife). */
  signOfLife(): void {
    this.out.signOfLife();
  }

  /** The host holds the ops of a page it sent, and the streams of a vector adopted from it (Outbound). */
  hostHolds(ops: readonly Op[], vector: Readonly<Vector> = {}): void {
    this.out.hostHolds(ops, vector);
  }

  /** Save this node's registry file; a failure (REGISTRY_UNSAVED) is reported, and the next save writes the newer state. */
  async save(): Promise<void> {
    try {
      await this.ctx.registry.save(this.rec);
    } catch (e) {
      this.report(e as SyncomError);
    }
  }

  /** Own ops the host holds, per own stream, saved with the registry (LOG-17): hello's vector is whole (ackHello). */
  private ack(): void {
    ackHello(this.replica, this.hv, this.rec.acked);
  }

  /** Reconcile every granted scope with the host on the push chain, then push what it lacks (ReconcileTurns, RECONCILE.md). */
  reconcile(): Promise<void> {
    if (!this.greeted || !this.caps.includes(RECONCILE_CAP)) return Promise.resolve();
    return this.runs.next();
  }

  /** What a reconciliation (or a bootstrap) with this host needs. */
  reconcileRun(): ReconcileRun {
    const { replica, rec: { remote, url, scopes }, pageSize, ctx: { telemetry } } = this;
    const have = { logged: this.haves, left: pageSize * HAVE_PAGES_PER_RUN };
    return { replica, link: this.link as SyncLink, host: remote.id ?? '', url, scopes, pageSize, telemetry, frame: this.takes.frame, have };
  }

  /** Push what the host lacks from its vector, backed off after a failed recovery (see Recovery); `all` (sync()): the held ops too. */
  recover(now: boolean, all = false): Promise<void> {
    return this.recovery.recover(now, all);
  }

  /** A call failed (see Recovery.failed). */
  failed(e: unknown): Promise<void> {
    return this.recovery.failed(e).finally(() => this.changed());
  }

  /** The host served a page: a run of 428s to fresh hellos is broken (LIFE-22). */
  served(): void { this.recovery.answered(); }

  /** The host asked for a fresh hello (428). */
  regreeting(): void { if (this.phase === 'greeted') this.phase = 'regreeting'; }

  /** Ops may be missing at the host; a limit refusal also forgets the queued ones. */
  markBehind(dropOutbox: boolean): void {
    if (dropOutbox) this.out.drop();
    this.behind = true;
  }

  /** Report a failure about this host: lastError, and the sync 'error' event with its url. */
  report(e: SyncomError): void {
    if (e === this.lastError) return;
    e.url ??= this.rec.url;
    this.lastError = e;
    this.ctx.events.emit('error', e);
  }

  private onClose(why?: unknown): void {
    const was = this.connected;
    if (this.phase !== 'stopped') this.phase = 'down';
    this.recovery.dropped(was, why);
    // The queue goes with the link (peers() reads pending 0 while down): the reconnect's hello pushes what the host lacks.
    if (was) { this.out.drop(); this.emitPeer(false, false); }
    this.changed();
  }
}

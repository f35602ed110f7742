import { SyncomError } from '../../errors';
import type { Subscription, SyncLink } from '../../link/contract';
import { unpackOps } from '../../op';
import type { Vector } from '../../op/types';
import type { PeerApplyResult } from '../../storage/peer';
import type { ReconcileRun } from './anti-entropy';
import { markHeld } from './dialer-push';
import type { SyncEvents } from '../events';
import { catchUp } from './incremental-bootstrap';
import type { SyncContext } from '../context';
import type { NodeRecord } from './registry';

/** The longest wait before a failed bootstrap is asked again. */
const MAX_RETRY_MS = 60_000;

/** What the feed needs of its dialer. */
export interface FeedOwner {
  readonly ctx: SyncContext;
  readonly rec: NodeRecord;
  readonly link?: SyncLink;
  readonly caps: string[];
  readonly stopped: boolean;
  hv: Vector;
  behind: boolean;
  bootstrapping: boolean;
  report(e: SyncomError): void;
  failed(e: unknown): Promise<void>;
  save(): Promise<void>;
  recover(now: boolean): Promise<void>;
  reconcileRun(): ReconcileRun;
  /** A page was taken (or dropped, or failed): what inSync() reads may have changed. */
  changed(): void;
}

/**
 * The changes subscription of one dialer (Protocol): pages taken in order,
 * the cursor saved after each, a break reopened from the saved cursor, a
 * bootstrap when the host cannot resume it, STUCK after three failed pages.
 */
export class DialerFeed {
  subscribed = false;
  stuck = false;
  private sub?: Subscription;
  private gen = 0;
  private pages: Promise<void> = Promise.resolve();
  private failures = 0;
  /** Pages handed over and not yet taken (a bootstrap runs inside its page's turn). */
  private inFlight = 0;
  /**
   * Whether the host answered this subscription, as far as it must: a cursor it may resume in
   * silence, or a first page taken. A feed opened with no cursor is always answered with a
   * bootstrap page, and until that is taken nothing says the two nodes hold the same ops.
   */
  private answered = true;
  /** Bootstraps failed, or asked for again before any page was taken, in a row; and the timer of the next try (backed off). */
  private retries = 0;
  private retry?: ReturnType<typeof setTimeout>;
  /** Bootstraps since a changes page was last taken or a hello succeeded. */
  private unpaged = 0;

  constructor(private readonly d: FeedOwner) {}

  /** Whether a subscription was ever opened. */
  get opened(): boolean {
    return this.sub !== undefined;
  }

  /** Whether a subscription runs (opened, and not ended by an error or the host). */
  get running(): boolean {
    return this.sub !== undefined && this.subscribed;
  }

  /** Whether the host answered the running subscription and no page of it is being taken. */
  get settled(): boolean {
    return this.answered && this.inFlight === 0;
  }

  /**
   * A hello succeeded: a bootstrap the host asks for from now on answers a
   * new session, not a loop of the last one's. A dialer away past the host's
   * retention twice, with no changes page between (a quiet host), is asked
   * for a bootstrap at each return, and was kept from its feed a backed-off
   * second to a minute after the second.
   */
  greeted(): void {
    this.unpaged = 0;
  }

  /** Close the subscription; pages of it still arriving are dropped. */
  close(): void {
    this.sub?.unsubscribe();
    clearTimeout(this.retry);
    this.gen++;
    this.subscribed = false;
  }

  /** Resolves once the page being taken, if any, is done. */
  async idle(): Promise<void> {
    await this.pages.catch(() => undefined);
  }

  /** (Re)open the changes subscription from a cursor; pages of an older one are dropped. */
  subscribe(cursor: string | null): void {
    this.sub?.unsubscribe();
    const gen = ++this.gen;
    this.subscribed = true;
    this.answered = cursor !== null;
    const { d } = this;
    this.sub = (d.link as SyncLink).subscribe('changes', { scopes: d.rec.scopes }, {
      lastEventId: cursor ?? undefined,
      onData: (v, id) => {
        this.inFlight++;
        const next = this.pages.catch(() => undefined).then(() => this.take(v, id, gen)).catch((e: unknown) => this.untaken(e))
          .finally(() => { this.inFlight--; this.d.changed(); });
        this.pages = next;
        return next;
      },
      // failed() reports and never rejects; the catch only keeps a broken promise from going unhandled.
      onError: (e) => { if (gen === this.gen) { this.subscribed = false; d.failed(e).catch(() => undefined); } },
      onEnd: () => { if (gen === this.gen) this.subscribed = false; },
    });
  }

  /**
   * A page that could not be taken (its log append failed: IO_ERROR). The
   * link offers it again on resume and never says why; the dialer reports
   * it, and rejects so the link does not count the page as taken.
   */
  private untaken(e: unknown): never {
    const error = e instanceof SyncomError ? e : new SyncomError('SYNC_FAILED', (e as Error)?.message ?? String(e), { cause: e });
    this.d.report(error);
    throw error;
  }

  /** Take one changes page: apply, then save the cursor; a break reopens from the saved cursor (PROTO-14). */
  private async take(value: unknown, eventId: string | undefined, gen: number): Promise<void> {
    const { d } = this;
    if (gen !== this.gen || d.stopped || this.stuck) return;
    const page = value as { bootstrap?: boolean; ops?: unknown; prev?: unknown; reason?: unknown };
    if (page?.bootstrap) return this.bootstrap(gen, page.reason);
    this.answered = true;
    // PROTO-18: only the page that follows the last one taken moves the cursor. A repeat of that one adds
    // nothing; one after a lost page would carry the cursor past the hole (its streams need not show a gap).
    if (eventId !== undefined && eventId === d.rec.cursor) return;
    if (typeof page?.prev === 'string' && d.rec.cursor !== null && page.prev !== d.rec.cursor) return this.subscribe(d.rec.cursor);
    const { res, event } = await this.apply(page?.ops);
    if (res.refused) return this.pageFailed(res.refused);
    for (const e of res.errors) d.report(e);
    this.failures = 0;
    this.unpaged = 0;
    this.retries = 0;
    d.ctx.events.emit('sync', event);
    if (res.gaps > 0 || eventId === undefined) {
      if (res.gaps > 0) this.subscribe(d.rec.cursor);
    } else {
      d.rec.cursor = eventId;
      d.rec.lastSync = d.ctx.replica.now();
      await d.save();
    }
    if (d.behind) void d.recover(false);
  }

  /** Apply a page's ops through the peer pipeline, in a changes-page span, with the sync event that tells what it did. */
  private async apply(packed: unknown): Promise<{ res: PeerApplyResult; event: SyncEvents['sync'][0] }> {
    const { ctx: m, rec } = this.d;
    const unpacked = unpackOps(packed);
    const { ops, malformed } = unpacked;
    m.replica.reportUnpacked(unpacked, rec.url);
    markHeld(this.d.hv, ops);
    const res = await m.telemetry.changesPage(rec.url, ops.length + malformed, async (span) => {
      const r = await m.replica.applyPage(ops, { via: { url: rec.url, node: rec.remote.id ?? '' }, feedHost: rec.remote.id ?? undefined });
      m.telemetry.pageApplied(span, { role: 'dialer', peer: rec.url }, r, malformed);
      return r;
    });
    const event = { url: rec.url, pushed: 0, received: ops.length + malformed, applied: res.applied, skipped: res.skipped, duplicates: res.duplicates, gaps: res.gaps, malformed: res.malformed + malformed, unsigned: res.unsigned, forged: res.forged };
    return { res, event };
  }

  /** A page that cannot be applied: PAGE_FAILED, then STUCK at the third in a row (PROTO-15, PROTO-16). */
  private pageFailed(cause: SyncomError): void {
    const { cursor, url } = this.d.rec;
    this.d.report(new SyncomError('PAGE_FAILED', `a changes page could not be applied: ${cause.message}`, { cursor, attempt: ++this.failures, cause, url }));
    if (this.failures < 3) return this.subscribe(cursor);
    this.stuck = true;
    this.close();
    this.d.report(new SyncomError('STUCK', 'three pages in a row failed: disable and enable the node to go on', { cursor, url }));
  }

  /** Switch to snapshot, then re-subscribe from the first page's event id (BOOT-1, BOOT-6). */
  private async bootstrap(gen: number, reason?: unknown): Promise<void> {
    const { d } = this;
    this.sub?.unsubscribe();
    this.gen++;
    const { url, cursor } = d.rec;
    const fell = reason === 'floor' && cursor !== null; // a cursor the host's retention passed, not a first contact
    const allowed = (await d.ctx.options.hooks?.beforeBootstrap?.({ url, remote: structuredClone(d.rec.remote) })) ?? true;
    if (!allowed || gen + 1 !== this.gen) return;
    d.bootstrapping = true;
    try {
      // With data here and a host that reconciles, only what differs crosses (set reconciliation, RECONCILE.md).
      const progress = (received: number, total: number) => d.ctx.events.emit('progress', { url, received, total });
      const { eventId, records } = await d.ctx.telemetry.bootstrap(url, (span) => catchUp(d.reconcileRun(), d.caps, { progress, span, fell }));
      d.rec.cursor = eventId || null;
      d.rec.lastSync = d.ctx.replica.now();
      await d.save();
      // Over when its event fires: a listener reading peers() sees it so.
      d.bootstrapping = false;
      d.ctx.events.emit('bootstrap', { url, records });
      // A host that answers every subscription with a bootstrap (a hostile one: 125,500 rounds in 13 s, an
      // advance op logged each) is asked again backed off, as after a failure; a changes page taken, or a
      // new hello, resets it.
      if (this.unpaged++ > 0) return this.tryAgain();
      if (!d.stopped) this.subscribe(d.rec.cursor);
    } catch (e) {
      await d.failed(e);
      this.tryAgain();
    } finally {
      d.bootstrapping = false;
    }
  }

  /**
   * A failed bootstrap is asked again, backed off from 1 s to a minute: the
   * feed was closed for it, and nothing else reopened it before the next
   * reconnect, so a host that answered 503 SNAPSHOT_BUSY once (every paging
   * of it in use) left the dialer without records for as long as the link
   * stayed up. So is one asked for again before any page was taken.
   */
  private tryAgain(): void {
    // No feed runs now: a hello after a reconnect opens one, and so does the timer below.
    this.subscribed = false;
    const gen = this.gen;
    if (this.d.stopped) return;
    const ms = Math.min(MAX_RETRY_MS, 1000 * 2 ** this.retries++);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      if (gen === this.gen && !this.d.stopped && !this.running) this.subscribe(this.d.rec.cursor);
    }, ms);
    this.retry.unref?.();
  }
}

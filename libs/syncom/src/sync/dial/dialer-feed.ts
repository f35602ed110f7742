import { SyncomError, syncFailure } from '../../errors';
import type { Subscription, SyncLink } from '../../link/contract';
import { unpackOps } from '../../op';
import { parseEventId } from '../../log/event-id';
import type { Op, Vector } from '../../op/types';
import type { PeerApplyResult } from '../../storage/peer';
import type { ReconcileRun } from './anti-entropy';
import type { SyncEvents } from '../events';
import { catchUp } from './incremental-bootstrap';
import type { SyncContext } from '../context';
import type { NodeRecord } from './registry';
import { FeedPace, MAX_BREAKS, MAX_RETRY_MS, mayPass } from './feed-pace';
import { adoptGranted, foreignGrants, hostAdopted } from './feed-grants';

/** What the feed needs of its dialer. */
export interface FeedOwner {
  readonly ctx: SyncContext;
  readonly rec: NodeRecord;
  readonly link?: SyncLink;
  readonly caps: string[];
  readonly stopped: boolean;
  behind: boolean;
  bootstrapping: boolean;
  report(e: SyncomError): void;
  /** The host holds every op its feed sends, and the streams of a vector adopted from it (markHeld). */
  hostHolds(ops: readonly Op[], vector?: Readonly<Vector>): void;
  failed(e: unknown): Promise<void>;
  /** The host served a page: a run of 428s to fresh hellos is broken (LIFE-22). */
  served(): void;
  /** A turn on the push chain (LIFE-21). */
  turn<T>(fn: () => Promise<T>): Promise<T>;
  save(): Promise<void>;
  /** A page from the host is a sign of life: what the host lacks goes, paced (HOST-16). */
  signOfLife(): void;
  reconcileRun(): ReconcileRun;
  /** A page was taken (or dropped, or failed): what inSync() reads may have changed. */
  changed(): void;
}

/**
 * The changes subscription of one dialer (Protocol): pages taken in order,
 * the cursor saved after each, a break reopened from the saved cursor, a
 * bootstrap when the host cannot resume it, STUCK after three failed pages
 * (or MAX_BREAKS that could not land at one cursor). Restarts a host asks
 * for without giving ops are paced (FeedPace).
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
  /** Bootstraps failed in a row; and the timer of the next try, or of a paced restart. */
  private retries = 0;
  private retry?: ReturnType<typeof setTimeout>;
  /** Bootstraps that went through, paced: a host that answers every subscription with one is asked again backed off. */
  private readonly boots: FeedPace;
  /** Pages refused for a gap or a foreign `prev`, or that failed, paced; reset by a page that brought ops. */
  private readonly breaks: FeedPace;
  /** The cursor the last such refusal was at, and how many came there in a row (STUCK at MAX_BREAKS). */
  private brokeAt: string | null = null;
  private brokeHere = 0;
  /** Lets go the page or bootstrap waiting on an app's hook, if one is (untilClosed): close() aborts it. */
  private letGo?: AbortController;

  constructor(private readonly d: FeedOwner) {
    const now = () => d.ctx.replica.now();
    this.boots = new FeedPace(now);
    this.breaks = new FeedPace(now);
  }

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
   * A hello succeeded: a bootstrap the host asks for from now on, or a page
   * that cannot land at the cursor, answers a new session, not a loop of the
   * last one's (FeedPace). A dialer away past the host's retention twice,
   * with no changes page between (a quiet host), is asked for a bootstrap at
   * each return, and was kept from its feed a backed-off second to a minute
   * after the second.
   */
  greeted(): void {
    this.boots.reset();
    this.breaks.reset();
  }

  /** Close the subscription; pages of it still arriving are dropped. */
  close(): void {
    this.sub?.unsubscribe();
    clearTimeout(this.retry);
    this.gen++;
    this.subscribed = false;
    this.letGo?.abort();
  }

  /**
   * Run `wait` (on an app's hook: beforeApply on a page, beforeBootstrap)
   * with a signal close() aborts. The dialer's stop waits for the page being
   * taken, and a bootstrap waits for its hook inside its page's turn: a hook
   * that never answered had kept removeNode(), enableNode(url, false) and
   * storage.close() (the lock held) waiting for good. The signal starts
   * aborted once the dialer stopped: an app's listener may stop it in between.
   */
  private async untilClosed<T>(wait: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // One at a time: a bootstrap runs inside its page's turn, and pages are taken in order.
    const letGo = (this.letGo = new AbortController());
    if (this.d.stopped) letGo.abort();
    try {
      return await wait(letGo.signal);
    } finally {
      this.letGo = undefined;
    }
  }

  /**
   * A failure of the feed (an error it was ended with, a failed bootstrap), on the push chain: a 428 there
   * greets again and pushes (Recovery.regreet), which must take its turn (LIFE-21). Handled at once, the
   * fresh hello's push went out beside a relay's still unanswered. A feed's 428 whose turn comes after a
   * newer feed opened (`gen`: a hello was answered since) is dropped: greeting again ended that feed with a
   * 428 whose turn greeted again, until HANDSHAKE_LOOP or a dialer left unsubscribed (found-by-model.spec.ts).
   */
  private failed(e: unknown, gen?: number): Promise<void> {
    const stale = () => gen !== undefined && gen !== this.gen && (e as SyncomError)?.status === 428;
    return this.d.turn(() => (stale() ? Promise.resolve() : this.d.failed(e)));
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
    try {
      this.sub = this.open(gen, cursor);
    } catch (e) {
      // An app's link that throws here (its socket gone) refused the feed: reported, and the next hello opens it.
      // Thrown, it escaped the retry timer that calls this as an uncaught exception, or left peers() reading subscribed.
      this.subscribed = false;
      this.failed(e).catch(() => undefined);
    }
    d.changed(); // Answered from a cursor (inSync() reads it): reopened by later(), a quiet host sent no page to tell synced().
  }

  /** The link's changes subscription of generation `gen`, from `cursor`. */
  private open(gen: number, cursor: string | null): Subscription {
    const { d } = this;
    return (d.link as SyncLink).subscribe('changes', { scopes: d.rec.scopes }, {
      lastEventId: cursor ?? undefined,
      onData: (v, id) => {
        this.inFlight++;
        const next = this.pages.catch(() => undefined).then(() => this.take(v, id, gen)).catch((e: unknown) => this.untaken(e, gen))
          .finally(() => { this.inFlight--; this.d.changed(); });
        this.pages = next;
        return next;
      },
      onError: (e) => {
        if (gen !== this.gen) return;
        this.subscribed = false;
        // failed() reports and never rejects; the catch only keeps a broken promise from going unhandled.
        this.failed(e, gen).catch(() => undefined);
        // A failure that may pass, on a link that stays up: only a reconnect's hello opened the feed again, so a
        // host that answered one subscription 503 (or 429), or failed it without a status, left the dialer deaf to
        // it while peers() read connected.
        if (mayPass(e)) this.later(Math.max(1000, this.breaks.next()));
      },
      onEnd: () => { if (gen === this.gen) this.subscribed = false; },
    });
  }

  /**
   * A page that could not be taken (its log append failed: IO_ERROR). The
   * link offers it again on resume and never says why; the dialer reports
   * it, and rejects so the link does not count the page as taken. The feed
   * is opened again from the saved cursor, paced (FeedPace): a link that
   * stays up never resumes, so the page (a browser's quota full for a
   * moment, a disk full) had waited for the host's next page or the next
   * anti-entropy, three minutes on, while the node read as behind.
   */
  private untaken(e: unknown, gen: number): never {
    // A page the dialer's stop let go while beforeApply had not answered (CLOSED) is no failure: it comes again.
    if (this.d.stopped && e instanceof SyncomError && e.code === 'CLOSED') throw e;
    const error = syncFailure(e);
    this.d.report(error);
    if (gen === this.gen && !this.d.stopped && !this.stuck) this.restart(this.breaks.next());
    throw error;
  }

  /** Take one changes page: apply, then save the cursor; a break reopens from the saved cursor (PROTO-14). */
  private async take(value: unknown, eventId: string | undefined, gen: number): Promise<void> {
    const { d } = this;
    if (gen !== this.gen || d.stopped || this.stuck) return;
    const page = value as { bootstrap?: boolean; ops?: unknown; prev?: unknown; reason?: unknown };
    if (page?.bootstrap) return this.bootstrap(gen, page.reason);
    this.answered = true;
    d.served();
    // PROTO-18: only the page that follows the last one taken moves the cursor. A repeat of that one adds
    // nothing; one after a lost page would carry the cursor past the hole (its streams need not show a gap).
    if (eventId !== undefined && eventId === d.rec.cursor) return;
    // The cursor is saved with the registry after every page and sent back at each resume: an id of any length had been kept as it came.
    if (eventId !== undefined && parseEventId(eventId) === undefined) return this.broke('its event id is no event id');
    if (typeof page?.prev === 'string' && d.rec.cursor !== null && page.prev !== d.rec.cursor) return this.broke('its prev is not the cursor');
    const { res, event } = await this.apply(page?.ops);
    if (res.refused) return this.pageFailed(res.refused);
    for (const e of res.errors) d.report(e);
    this.failures = 0;
    // New ops are what a lost page's resubscription is for; an empty page or a repeat costs a host nothing.
    if (res.applied > 0) this.breaks.reset();
    // The cursor moves before the sync event: a listener reading peers() or listNodes() there sees the page taken.
    // An op refused as SKEW is sound, early for this node's clock: past it, it never came again from this feed.
    const moves = res.gaps === 0 && res.skew === 0 && eventId !== undefined;
    if (moves) {
      d.rec.cursor = eventId;
      d.rec.lastSync = d.ctx.replica.now();
    }
    d.ctx.events.emit('sync', event);
    if (res.gaps > 0 || res.skew > 0) this.broke(res.gaps > 0 ? `it shows ${res.gaps} gap(s)` : `${res.skew} op(s) stamped past maxSkew`);
    else if (moves) await d.save();
    d.signOfLife();
  }

  /**
   * A page that cannot land where the cursor is (PROTO-14, PROTO-18): a page
   * before it was lost, or it skips ops of a stream. The cursor stays and the
   * feed is opened again from it, paced (FeedPace): a lost page is mended at
   * once, a host that sends such a page at every subscription is asked again
   * backed off, and the same cursor refused MAX_BREAKS times in a row leaves
   * the peer stuck, as three failed pages do.
   */
  private broke(why: string): void {
    const { cursor, url } = this.d.rec;
    if (cursor !== this.brokeAt) [this.brokeAt, this.brokeHere] = [cursor, 0];
    if (++this.brokeHere >= MAX_BREAKS) {
      // Reported only now: a lost page is no failure, and one would be reported at every lossy link's hiccup.
      const cause = new SyncomError('PAGE_FAILED', `the page after the cursor could not land: ${why}`, { cursor, attempt: this.brokeHere, url });
      this.d.report(cause);
      return this.stick(cause, `${this.brokeHere} pages in a row could not land at the cursor (${why})`);
    }
    this.restart(this.breaks.next());
  }

  /** Open the feed again from the saved cursor, now or after `ms` (none runs meanwhile). */
  private restart(ms: number): void {
    if (ms === 0) return this.subscribe(this.d.rec.cursor);
    this.sub?.unsubscribe();
    this.gen++;
    this.later(ms);
  }

  /** Apply a page's ops through the peer pipeline, in a changes-page span, with the sync event that tells what it did. */
  private async apply(packed: unknown): Promise<{ res: PeerApplyResult; event: SyncEvents['sync'][0] }> {
    const { ctx: m, rec } = this.d;
    const unpacked = unpackOps(packed);
    const { ops, malformed } = unpacked;
    m.replica.reportUnpacked(unpacked, rec.url);
    const host = rec.remote.id ?? undefined;
    // The host holds what its own advances name (its adoptions, BOOT-11): the streams they move here are not its lag.
    this.d.hostHolds(ops, hostAdopted(ops, host, m.replica.id, m.replica.vector));
    const via = { url: rec.url, node: host ?? '' };
    // The host's own advances grant as sent (BOOT-11) unless one names a stream of a scope it is not dialed for.
    const foreign = foreignGrants(ops, host, rec.scopes, m.replica.vector);
    const res = await m.telemetry.changesPage(rec.url, ops.length + malformed, async (span) => {
      const r = await this.untilClosed((signal) => m.replica.applyPage(ops, { via, feedHost: foreign.length ? undefined : host, signal }));
      m.telemetry.pageApplied(span, { role: 'dialer', peer: rec.url }, r, malformed);
      return r;
    });
    if (foreign.length) await adoptGranted(m.replica, foreign, { host: host as string, via, scopes: rec.scopes });
    const event = { url: rec.url, pushed: 0, received: ops.length + malformed, applied: res.applied, skipped: res.skipped, duplicates: res.duplicates, gaps: res.gaps, malformed: res.malformed + malformed, unsigned: res.unsigned, forged: res.forged };
    return { res, event };
  }

  /**
   * A page that cannot be applied: PAGE_FAILED, then STUCK at the third in a row (PROTO-15,
   * PROTO-16). The feed is opened again paced, as after a break (FeedPace): an empty page
   * between two failed ones starts the count of failures over, and a host answering every
   * subscription with both had the dialer resubscribe at once, for ever, never STUCK.
   */
  private pageFailed(cause: SyncomError): void {
    const { cursor, url } = this.d.rec;
    this.d.report(new SyncomError('PAGE_FAILED', `a changes page could not be applied: ${cause.message}`, { cursor, attempt: ++this.failures, cause, url }));
    if (this.failures < 3) return this.restart(this.breaks.next());
    this.stick(cause, 'three pages in a row failed');
  }

  /** Nothing past the cursor is taken until the node is disabled and enabled (PROTO-16, PROTO-17). */
  private stick(cause: SyncomError, why: string): void {
    const { cursor, url } = this.d.rec;
    this.stuck = true;
    this.close();
    this.d.report(new SyncomError('STUCK', `${why}: disable and enable the node to go on`, { cursor, url, cause }));
  }

  /** Switch to snapshot, then re-subscribe from the first page's event id (BOOT-1, BOOT-6). */
  private async bootstrap(gen: number, reason?: unknown): Promise<void> {
    const { d } = this;
    this.sub?.unsubscribe();
    this.gen++;
    const { url, cursor } = d.rec;
    const fell = reason === 'floor' && cursor !== null; // a cursor the host's retention passed, not a first contact
    let allowed: boolean;
    try {
      const ask = d.ctx.options.hooks?.beforeBootstrap?.({ url, remote: structuredClone(d.rec.remote) });
      // Undefined once close() ended the feed: the bootstrap is over (its gen moved on).
      const closed = (signal: AbortSignal) => new Promise<undefined>((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', () => resolve(undefined))));
      allowed = (await this.untilClosed((signal) => Promise.race([ask, closed(signal)]))) ?? true;
    } catch (e) {
      // A hook that throws is a failed bootstrap, reported and asked again backed off: the feed was closed for
      // it, and nothing else opened it again before the next reconnect.
      if (gen + 1 !== this.gen) return;
      await this.failed(e);
      return this.tryAgain();
    }
    if (gen + 1 !== this.gen) return;
    // Declined: no feed runs (peers() says so), and the next hello (a reconnect) opens one, asking the hook again.
    if (!allowed) return void (this.subscribed = false);
    d.bootstrapping = true;
    try {
      // With data here and a host that reconciles, only what differs crosses (set reconciliation, RECONCILE.md).
      const progress = (received: number, total: number) => d.ctx.events.emit('progress', { url, received, total });
      const { eventId, records, vector } = await d.ctx.telemetry.bootstrap(url, (span) => catchUp(d.reconcileRun(), d.caps, { progress, span, fell, report: (e) => d.report(e) }));
      // The host held what its vector named, which may be past its hello's (it took ops between the two): else
      // this node counted the ops it now holds of those streams as ones the host lacked, and synced() never resolved.
      d.hostHolds([], vector);
      d.rec.cursor = eventId || null;
      d.rec.lastSync = d.ctx.replica.now();
      await d.save();
      // Over when its event fires: a listener reading peers() sees it so.
      d.bootstrapping = false;
      this.retries = 0;
      d.ctx.events.emit('bootstrap', { url, records });
      // A host that answers every subscription with a bootstrap (a hostile one: 125,500 rounds in 13 s, an
      // advance op logged each) is asked again backed off; only a new hello, or two quiet minutes, start
      // the count over: not a page between two of them, which (empty) costs the host nothing.
      const wait = this.boots.next();
      if (wait > 0) return this.later(wait);
      if (!d.stopped) this.subscribe(d.rec.cursor);
    } catch (e) {
      await this.failed(e);
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
   * stayed up.
   */
  private tryAgain(): void {
    this.later(Math.min(MAX_RETRY_MS, 1000 * 2 ** this.retries++));
  }

  /** Subscribe from the saved cursor in `ms`, unless something else opened the feed meanwhile. */
  private later(ms: number): void {
    // No feed runs now: a hello after a reconnect opens one, and so does the timer below.
    this.subscribed = false;
    const gen = this.gen;
    if (this.d.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      if (gen === this.gen && !this.d.stopped && !this.running) this.subscribe(this.d.rec.cursor);
    }, ms);
    this.retry.unref?.();
  }
}

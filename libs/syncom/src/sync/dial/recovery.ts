import { remoteErrorCode, SyncomError } from '../../errors';
import type { SyncContext } from '../context';
import type { NodeRecord } from './registry';
import { mayPass, passes } from './feed-pace';
import { urlLabel } from '../../telemetry/url-label';
import { isEarlyDrop, STEADY_MS } from '../../link/early-drops';

const MAX_BACKOFF = 60_000;
/** The wait after one more failure: a second, then doubling, to a minute. */
const doubled = (ms: number): number => Math.min(MAX_BACKOFF, ms ? ms * 2 : 1000);
const codeOf = (e: unknown) => (e as { code?: string })?.code;
const statusOf = (e: unknown) => (e as { status?: number })?.status;

/** What recovery asks of its dialer. */
export interface Recoverable {
  readonly ctx: SyncContext;
  readonly rec: NodeRecord;
  /** A hello was answered on the live link (and no fresh one is due). */
  readonly greeted: boolean;
  readonly stopped: boolean;
  /** Ops may be missing at the host (a push failed or was refused), until a recovery pushes them. */
  readonly behind: boolean;
  lastError: SyncomError | null;
  /** Take a turn on the push chain (LIFE-21). */
  turn<T>(fn: () => Promise<T>): Promise<T>;
  hello(reconnected: boolean): Promise<void>;
  /** hello then push, on the push chain; with `unlessGreeted`, nothing when a hello was answered meanwhile. */
  handshake(reconnected: boolean, unlessGreeted?: boolean): Promise<void>;
  /** Push what the host lacks; `all` also what a refusal that stands held (RefusedStreams). */
  pushLacking(all?: boolean): Promise<void>;
  /** Open the subscription if none runs. */
  resume(): void;
  /** The host asked for a fresh hello (428). */
  regreeting(): void;
  /** Ops may be missing at the host: the next commit asks for a recovery (dropOutbox also forgets the queued ones). */
  markBehind(dropOutbox: boolean): void;
  report(e: SyncomError): void;
  /** What inSync() reads may have changed. */
  changed(): void;
}

/**
 * How a dialer gets back in step after a failure: a recovery push from the
 * host's vector, backed off after it failed (HOST-17); a fresh hello for a
 * 428, HANDSHAKE_LOOP after five in a row (LIFE-22); a limit drops the
 * outbox; a lost link waits for the reconnect.
 */
export class Recovery {
  private backoff = 0;
  private timer?: NodeJS.Timeout;
  /** A hello sent again after a failed one (greetFailed), and its backoff. */
  private helloTimer?: ReturnType<typeof setTimeout>;
  private helloBackoff = 0;
  /** A dial after connect(node) failed (dialLater), and its backoff. */
  private dialTimer?: ReturnType<typeof setTimeout>;
  private dialBackoff = 0;
  /** A recovery queued on the push chain and not started yet (see recover), and whether one asked it for every op (sync()). */
  private queued: Promise<void> | undefined;
  private all = false;
  /** Push answers taken, and those that moved the host's vector (a recovery that moved it not at all failed). */
  private readonly pushes = { answered: 0, moved: 0 };
  private loops = 0;
  private looped = false;
  /** The error the last failed dial or hello left in lastError: an answered hello disproves it. */
  private unmet: SyncomError | null = null;
  /** The link's word that the host keeps dropping connections soon after they come (EarlyDrop), until one stays up. */
  private flaps: SyncomError | null = null;
  private steadyTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly d: Recoverable) {}

  /** The link reconnected: the count of 428s starts over. */
  reconnected(): void {
    this.looped = false;
    this.loops = 0;
  }

  /** The host answered a push or served a page: the count of 428s starts over (a quiet dialer pushes nothing). */
  answered(): void {
    this.loops = 0;
  }

  /** The host answered a push; `moved`: its vector took some of it. */
  pushAnswered(moved: boolean): void {
    this.answered();
    this.pushes.answered++;
    if (moved) this.pushes.moved++;
  }

  /** Where the push answers stand, for settled(): read as a recovery starts. */
  mark(): { answered: number; moved: number } {
    return { ...this.pushes };
  }

  /**
   * A recovery pushed what the host lacks: one whose pushes the host took none of
   * (refused, gaps there) failed, and the next a page or a write asks for is backed
   * off (HOST-17). Only one that threw counted before: a host refusing every push
   * had the dialer push its whole log again at each of its pages, without a pause.
   */
  settled(since: { answered: number; moved: number }): void {
    const failed = this.pushes.answered > since.answered && this.pushes.moved === since.moved;
    this.backoff = failed ? doubled(this.backoff) : 0;
  }

  stop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.helloTimer);
    clearTimeout(this.dialTimer);
    clearTimeout(this.steadyTimer);
    this.helloTimer = undefined;
  }

  /** The host keeps dropping connections soon after they come: not in step, whatever the last hello said. */
  get flapping(): boolean {
    return this.flaps !== null;
  }

  /**
   * No link came (connect(node) threw or rejected, or beforeConnect threw):
   * dial again after a second, doubling to a minute. Reconnecting is the
   * link's job, but there was no link yet: a host down as the node started
   * (an async connect that awaits the socket) was never dialed again before
   * a restart or enableNode().
   */
  dialLater(dial: () => void): void {
    this.unmet = this.d.lastError;
    if (this.d.stopped) return;
    this.dialBackoff = doubled(this.dialBackoff);
    clearTimeout(this.dialTimer);
    this.dialTimer = setTimeout(() => { if (!this.d.stopped) dial(); }, this.dialBackoff);
    this.dialTimer.unref?.();
  }

  /**
   * A hello that failed on a link still up, lost (LINK_TIMEOUT) or answered
   * with a refusal that passes (429, or 5xx: the host failed to handle it):
   * greet again after a second, doubling to a minute, unless a hello is
   * answered first (a reconnect greets at once). Only a reconnect greeted
   * again, and a link that does not cycle its connection after such a call
   * (the memory link, an app's own; the socket.io link on an error answer)
   * never reconnects: the dialer stayed ungreeted, sync() and anti-entropy
   * doing nothing. A refusal that stands (401, 403, 426) is not retried.
   */
  greetFailed(e: unknown): void {
    this.unmet = this.d.lastError;
    if (codeOf(e) === 'LINK_TIMEOUT' || passes(e)) this.greetLater();
  }

  private greetLater(): void {
    if (this.helloTimer || this.d.stopped || this.d.greeted) return;
    this.helloBackoff = doubled(this.helloBackoff);
    this.helloTimer = setTimeout(() => {
      this.helloTimer = undefined;
      if (!this.d.stopped && !this.d.greeted) void this.d.handshake(false, true);
    }, this.helloBackoff);
    this.helloTimer.unref?.();
  }

  /**
   * A hello was answered: a later lost one waits a second again, and
   * lastError no longer holds what kept the host out of reach (a lost link, a
   * failed dial or hello). Kept, a 401 answered since read as the reason a
   * host down later was offline (apps/web shows it as a refused token), and
   * LINK_DOWN stayed while the peer was in sync. Errors about what the host
   * took or sent (a refused push, a page that failed) stay until the next.
   */
  greeted(): void {
    const last = this.d.lastError;
    if (this.flaps) this.steadyLater();
    else if (last && (last === this.unmet || last.code === 'LINK_DOWN' || last.code === 'LINK_TIMEOUT')) this.d.lastError = null;
    this.unmet = null;
    this.helloBackoff = 0;
    this.dialBackoff = 0;
    clearTimeout(this.helloTimer);
    this.helloTimer = undefined;
  }

  /**
   * Push what the host lacks from its vector; backed off after a failed
   * recovery (HOST-17). While the dialer is behind, every commit asks for a
   * recovery; each used to take a turn of its own and scan the whole log
   * (measured: 4,500 scans of a 100k-entry log in one benchmark run).
   * `all` (sync()) pushes what a refusal that stands held too.
   */
  recover(now: boolean, all = false): Promise<void> {
    if (!this.d.greeted) return Promise.resolve();
    this.all ||= all;
    if (!now && this.backoff > 0) {
      if (!this.timer) this.timer = setTimeout(() => { this.timer = undefined; void this.recover(true); }, this.backoff);
      this.timer.unref?.();
      return Promise.resolve();
    }
    // One recovery waiting for its turn serves every call until it starts: it reads the log when it runs.
    if (this.queued) return this.queued;
    const queued = this.d.turn(async () => {
      this.queued = undefined;
      const every = this.all;
      this.all = false;
      try {
        await this.d.pushLacking(every);
      } catch (e) {
        this.backoff = doubled(this.backoff);
        await this.failed(e);
      }
    });
    this.queued = queued;
    return queued;
  }

  /**
   * A rate the host refused (429: ops or purges a second) passes with time,
   * its bucket refilling within a second: a recovery is asked for after the
   * backoff (a second, doubling to a minute as recoveries fail), so a dialer
   * catching up with nothing new to write, at a quiet host, does not wait
   * for anti-entropy (it waited 180 s with 3,000 ops unpushed). Not once a
   * recovery meanwhile (a write's, a page's) caught up: each reads the log.
   */
  private retryLater(): void {
    if (this.timer || this.d.stopped) return;
    this.timer = setTimeout(() => { this.timer = undefined; if (this.d.behind) void this.recover(true); }, this.backoff || 1000);
    this.timer.unref?.();
  }

  /** A call failed: 428 greets again, a limit drops the outbox (a rate also retries later, as a 5xx does), a lost link waits for reconnect. */
  async failed(e: unknown): Promise<void> {
    const status = statusOf(e);
    if (status === 428) return this.regreet();
    if (status === 413 || status === 429) {
      this.d.markBehind(true);
      const { code, remoteCode = (e as SyncomError).remoteCode } = remoteErrorCode(codeOf(e), 'LIMITED');
      this.d.ctx.telemetry.limited('dialer', this.d.rec.url, code);
      this.d.report(new SyncomError(code, (e as Error).message, { status, url: this.d.rec.url, remoteCode }));
      if (status === 429) this.retryLater();
      return;
    }
    this.d.markBehind(false);
    this.fail(e);
    // A host that failed to handle the call (5xx: its disk full, a restart), a lost call, a failure this node made:
    // asked again later too. A quiet node whose push failed stayed behind until its next write or anti-entropy.
    if (mayPass(e)) this.retryLater();
  }

  /**
   * The link dropped, `why` its word for it. A greeted link's drop is
   * lastError (LINK_DOWN, no error event, as a lost call is): a link that
   * redials by itself (socket.io) tells the dialer nothing of its failed
   * attempts, so a page reading peers() saw no reason for the host being
   * offline for as long as it stayed down. A host that keeps dropping
   * connections soon after they come (EarlyDrop: the link dials it backed
   * off, and says when) stays lastError, and the dialer out of step, until
   * a connection has stayed up STEADY_MS: each of its short connections was
   * greeted, and lastError went with each greeting.
   */
  dropped(greeted: boolean, why: unknown): void {
    clearTimeout(this.steadyTimer);
    if (isEarlyDrop(why)) {
      why.url = this.d.rec.url;
      this.d.lastError = this.flaps = why;
      return;
    }
    this.flaps = null;
    // The link's own reason (a frame past a bound, FRAME_TOO_LARGE: it drops every connection at the same page):
    // reported once the link has handled its drop (a call it failed reports the same error once). As LINK_DOWN,
    // an idle dialer flapped at that page saying nothing, and nothing named the bound to raise.
    if (why instanceof SyncomError && why.code !== 'LINK_DOWN' && why.code !== 'LINK_TIMEOUT') {
      why.url ??= this.d.rec.url;
      void Promise.resolve().then(() => this.d.report(why));
      return;
    }
    if (greeted) this.d.lastError = new SyncomError('LINK_DOWN', `the link to ${urlLabel(this.d.rec.url)} dropped; waiting for it to come back`, { url: this.d.rec.url });
  }

  /** Greeted after early drops: once the connection has stayed up STEADY_MS, the host is taken as in step again. */
  private steadyLater(): void {
    clearTimeout(this.steadyTimer);
    this.steadyTimer = setTimeout(() => {
      if (isEarlyDrop(this.d.lastError)) this.d.lastError = null;
      this.flaps = null;
      this.d.changed();
    }, STEADY_MS);
    this.steadyTimer.unref?.();
  }

  /** Report a failure, but a lost link only as lastError: the reconnect greets again. */
  fail(e: unknown): void {
    const code = codeOf(e);
    // While the host keeps dropping connections, a call the drop failed says less than the drops do.
    if (code === 'LINK_DOWN' || code === 'LINK_TIMEOUT') { this.d.lastError = this.flaps ?? (e as SyncomError); return; }
    this.d.report(e instanceof SyncomError ? e : new SyncomError(remoteErrorCode(code, 'SYNC_FAILED').code, (e as Error)?.message ?? String(e), { status: statusOf(e), cause: e }));
  }

  /** Five 428s to fresh hellos in a row: HANDSHAKE_LOOP, once, until the link reconnects (LIFE-22). */
  private async regreet(): Promise<void> {
    for (;;) {
      this.d.regreeting();
      if (this.looped) return;
      if (++this.loops >= 5) {
        this.looped = true;
        this.d.report(new SyncomError('HANDSHAKE_LOOP', 'the host answered 428 to five fresh hellos in a row', { status: 428, url: this.d.rec.url }));
        return;
      }
      try {
        await this.d.hello(false);
        if (this.d.stopped) return;
        await this.d.pushLacking();
        return this.d.resume();
      } catch (e) {
        if (statusOf(e) !== 428) {
          await this.failed(e);
          return this.greetFailed(e);
        }
      }
    }
  }
}

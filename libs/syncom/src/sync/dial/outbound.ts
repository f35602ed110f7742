import type { SyncomError } from '../../errors';
import type { SyncLink } from '../../link/contract';
import type { LogEntry } from '../../log/op-log';
import { type Op, opStreamKey, type Vector } from '../../op/types';
import type { SyncContext } from '../context';
import type { NodeRecord } from './registry';
import { gained, hostLacks, markHeld, type PushAnswer, pushedEvent, pushFrames, pushPage, PushRefusals, SizeStalls, takePushAnswer } from './dialer-push';
import { RefusedStreams } from './refused-streams';
import type { Recovery } from './recovery';

/** What the push side needs of its dialer. */
export interface OutboundOwner {
  readonly ctx: SyncContext;
  readonly rec: NodeRecord;
  readonly link?: SyncLink;
  /** A hello was answered on the live link (and no fresh one is due). */
  readonly greeted: boolean;
  /** Ops may be missing at the host (a push failed or was refused), until a recovery pushes them. */
  behind: boolean;
  /** The host's vector as this dialer knows it, raised in place by answers and pages (a new object at each hello). */
  readonly hv: Vector;
  /** The largest push the host takes, in bytes, when its hello said (bounded frames). */
  readonly pushBytes: number | undefined;
  /** The scopes the host is dialed for, as a set. */
  allowed(): Set<string> | 'all';
  /** These keys of the host's vector may have moved (HostLag). */
  moved(keys: Iterable<string>): void;
  readonly recovery: Pick<Recovery, 'pushAnswered' | 'mark' | 'settled'>;
  /** A turn on the push chain whose failure goes to failed(). */
  guarded(fn: () => Promise<void>): Promise<void>;
  /** Push what the host lacks from its vector, backed off after a recovery that failed (Recovery.recover). */
  recover(now: boolean): Promise<void>;
  report(e: SyncomError): void;
  save(): Promise<void>;
}

/**
 * The push side of one dialer (Protocol, push): what the host lacks by its
 * vector, relayed as it is written or pushed from the whole log by a
 * recovery, in bounded frames on the dialer's push chain (LIFE-21); the
 * answers' vectors, counts and refusals.
 */
export class Outbound {
  private outbox: LogEntry[] = [];
  private readonly stalls = new PushRefusals();
  private readonly sizes: SizeStalls;
  private readonly refused: RefusedStreams;

  constructor(private readonly d: OutboundOwner) {
    this.refused = new RefusedStreams(() => d.ctx.replica.now());
    this.sizes = new SizeStalls({
      send: (frame) => pushPage(d.link as SyncLink, d.ctx.telemetry, d.rec.url, frame), hv: () => d.hv, limit: () => d.pushBytes,
      url: () => d.rec.url, refused: () => d.ctx.telemetry.limited('dialer', d.rec.url, 'BYTES_PER_PUSH'), report: (e) => d.report(e),
    });
  }

  private get replica() { return this.d.ctx.replica; }
  private get pageSize() { return this.d.ctx.options.pageSize ?? 500; }

  /** Ops queued on the live link for the next push (peers()[i].pending). */
  get pending(): number {
    return this.outbox.length;
  }

  /** Whether the host lacks an op held back here (peers() shows it behind: the op is not delivered there). */
  lagging(): boolean {
    return this.sizes.lagging(this.d.hv) || this.refused.any;
  }

  /** A new hello: the host may take more now, and a refusal may no longer stand (RefusedStreams). */
  greeted(): void {
    this.sizes.clear();
    this.refused.clear();
  }

  /** Forget the queued ops (a limit refusal, a lost link): a recovery or the reconnect's hello pushes what the host lacks. */
  drop(): void {
    this.outbox = [];
  }

  /** Whether an op should go to this host, and the host lacks it by its vector. */
  private lacks(e: LogEntry, ownBack = true): boolean {
    const { d } = this;
    return hostLacks(e, d.rec.remote.id, d.allowed(), d.hv, ownBack) && !this.sizes.holds(e, d.hv) && !this.refused.holds(e, d.hv);
  }

  /**
   * Push every op the host lacks by its vector, from the whole retained log
   * (OPT-10), but those of streams a refusal that stands holds (RefusedStreams);
   * `all` (sync()) pushes those too. A recovery whose pushes the host took
   * none of failed: the next is backed off (Recovery.settled).
   */
  async pushLacking(all = false): Promise<void> {
    this.outbox = [];
    if (all) this.refused.clear();
    const log = this.replica;
    const mark = this.d.recovery.mark();
    // A stream stopped after a hole there, or a hold let go, leaves the peer behind: the next sign of life recovers.
    this.d.behind = await this.pushEntries(log.read(log.floor).filter((e) => this.lacks(e)));
    this.d.recovery.settled(mark);
  }

  /** Push entries in frames; true when a stream stopped unheld, or a held one was let go (a recovery is due). */
  private async pushEntries(entries: LogEntry[]): Promise<boolean> {
    let refused = false;
    const take = (frame: LogEntry[], ans: PushAnswer) => void (refused = this.takeAnswer(frame, ans) || refused);
    // None is sized or pushed before its sig: a snapshot's merges signed after their join, old unsigned own ops signed now.
    entries = await this.replica.outgoing(entries);
    // Pushes never overlap: each waits for the answer to the one before (LIFE-21).
    for (const frame of pushFrames(entries, (e) => this.lacks(e), { pushBytes: this.d.pushBytes, pageSize: this.pageSize, pageBytes: this.d.ctx.options.pageBytes })) {
      await this.sizes.push(frame, take);
    }
    await this.d.save();
    return refused;
  }

  /**
   * A push answered: the host's vector, the sync event, behind; true when a
   * stream stopped unheld (after a hole there), or a hold was let go.
   */
  private takeAnswer(frame: LogEntry[], ans: PushAnswer | undefined): boolean {
    const { d } = this;
    const keys = Object.keys(takePushAnswer(this.replica, d.hv, d.rec.acked, ans?.vector ?? {}));
    d.moved(keys);
    const freed = this.refused.moved(keys, d.hv);
    d.recovery.pushAnswered(gained(frame, d.hv));
    d.rec.lastSync = this.replica.now();
    const event = pushedEvent(d.rec.url, frame.length, ans);
    d.ctx.events.emit('sync', event);
    const stall = this.stalls.judge(frame, d.hv, ans, d.rec.url);
    // Held before the report (peers() reads behind): an op committed from here on (a listener may write at once)
    // waits with its stream, never pushed alone as a gap the host drops. The gaps after a held op are its stream's.
    const stopped = stall.stopped && !this.refused.hold(frame, d.hv);
    if (stopped || (event.gaps > 0 && !stall.stopped)) d.behind = true;
    for (const e of stall.errors) d.report(e);
    return stopped || freed;
  }

  /** The host holds the ops of a page it sent, and the streams of a vector adopted from it (markHeld); a hold it passed goes. */
  hostHolds(ops: readonly Op[], vector: Readonly<Vector> = {}): void {
    const keys = markHeld(this.d.hv, ops, vector);
    this.d.moved(keys);
    if (this.refused.moved(keys, this.d.hv)) this.d.behind = true;
  }

  /** New log entries: relay what the host lacks; a sign of life (HOST-16). */
  relay(from: number, to: number): void {
    const { d } = this;
    // Behind, what the host can take now (the next op of its stream there: a write of this node's, while another
    // origin's gap it cannot fill holds the peer behind) goes at once; it had waited for a recovery's backoff, up to
    // a minute. Only these entries are read: a write does not read the whole log.
    if (d.greeted && d.behind) this.pushNext(this.replica.read(from - 1, to - from + 1));
    this.signOfLife();
    if (!d.greeted || d.behind) return;
    const entries = this.replica.read(from - 1, to - from + 1).filter((e) => this.lacks(e, false));
    if (entries.length === 0) return;
    this.outbox.push(...entries);
    if (this.outbox.length > (d.ctx.options.maxOutbox ?? 10_000)) {
      this.outbox = [];
      d.behind = true;
      return void d.recover(false);
    }
    void d.guarded(async () => {
      // An earlier turn took what this commit added (pushes coalesce while one is out): nothing to push or save.
      if (this.outbox.length === 0) return;
      // A push before this turn stopped a stream (a scope refusal or a gap; a limit refusal dropped the outbox):
      // pushed alone these ops are a gap there. They are the sign of life that recovers it (HOST-16).
      if (d.behind) {
        this.outbox = [];
        return void d.recover(false);
      }
      // Queued before a refusal held their stream, they are a sign of life for it too (push-races-scope-refusal.spec.ts).
      this.signOfLife();
      if (await this.pushEntries(this.outbox.splice(0))) d.behind = true;
    });
  }

  /** Push the entries that follow on what the host holds of their streams, in order (none after a gap). */
  private pushNext(entries: LogEntry[]): void {
    const { d } = this;
    const at: Vector = {};
    const next = entries.filter((e) => {
      const k = opStreamKey(e.op);
      if (!this.lacks(e, false) || (at[k] ?? d.hv[k] ?? 0) !== e.op.seq - 1) return false;
      at[k] = e.op.seq;
      return true;
    });
    if (next.length > 0) void d.guarded(async () => void (await this.pushEntries(next)));
  }

  /**
   * A page from the host or an op to relay (HOST-16): a behind peer is
   * recovered (backed off after a recovery that failed), and the op each
   * stream a refusal holds stopped at goes again when due (RefusedStreams);
   * one the host takes now, a recovery pushes what follows. While the
   * refusal stands, a sign of life reads nothing of the log.
   */
  signOfLife(): void {
    const { d } = this;
    if (!d.greeted) return;
    if (d.behind) return void d.recover(false);
    if (!this.refused.due) return;
    this.refused.queue();
    void d.guarded(async () => {
      const again = this.refused.retry((pos) => this.replica.read(pos - 1, 1)[0]);
      try {
        if (await this.pushEntries(again)) d.behind = true;
      } finally {
        if (this.refused.retried()) d.behind = true;
      }
      if (d.behind) await this.pushLacking();
    });
  }
}

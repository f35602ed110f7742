import { CLOSE_BYTES, Frame, rangesBytes } from './frame';
import { fingerprintSpan, type ItemSet, type Span, spanOf } from './item-set';
import { compareBounds, type Key, MIN_KEY } from './keys';
import type { Params } from './params';
import { compareSpan } from './spans';
import { type Bound, type Message, MODE, type Range, type ReconcileRefusal, refuse } from './types';
import { mergeWork, type Work, workFor, workRanges } from './work';

/** What one reconcile call tells its caller: the message to send, if any, and the ids newly found. */
export interface ReconcileStep {
  ok: true;
  /** The next message to send; null when the run is over (the initiator's only). */
  next: Message | null;
  /** Ids this side holds that the peer lacks or holds differently. */
  have: string[];
  /** Ids the peer holds that this side lacks or holds differently. */
  need: string[];
}

interface Learned {
  have: string[];
  need: string[];
}

/** Push without spreading: a spread of many thousand arguments overflows the stack. */
function append<T>(to: T[], from: readonly T[]): void {
  for (const x of from) to.push(x);
}

/** The ids not reported before, each once; marks them reported. */
function fresh(seen: Set<string>, ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

/**
 * The position of the in-flight ask that holds [lower, upper), searched from
 * `from` (answer ranges come in key order, asks too); -1 when none does.
 */
function askHolding(asks: readonly Work[], from: number, lower: Key, upper: Bound): number {
  let p = from;
  while (p < asks.length && compareBounds(asks[p].upper, lower) <= 0) p++;
  const w = asks[p];
  return w && compareBounds(w.lower, lower) <= 0 && compareBounds(upper, w.upper) <= 0 ? p : -1;
}

/**
 * The side that starts a run and learns the differences. It keeps the ranges
 * it has yet to ask about (the backlog) and those awaiting an answer (in
 * flight): a frame too small for one round's work spreads it over rounds,
 * and what the responder defers is asked again, not re-found from the top.
 */
export class Initiator {
  private backlog: Work[];
  private inflight: Work[] = [];
  /**
   * The most asks the next message puts in flight: no bound until a
   * responder defers, then twice what it answered before its defer (at least
   * one), doubling at each answer that defers nothing. A defer sent before
   * any answer, a few bytes, had this side ask its whole frame again at each
   * round (test/hostile/reconcile-answer-cost.spec.ts).
   */
  private room = Infinity;
  private readonly had = new Set<string>();
  private readonly needed = new Set<string>();

  constructor(private readonly set: ItemSet, private readonly p: Params) {
    // A small set is listed at once; a large one starts with one fingerprint, so equal sets cost a few bytes.
    const mode = set.size < p.listBelow ? MODE.tags : MODE.fingerprint;
    this.backlog = [{ lower: MIN_KEY, upper: null, mode }];
  }

  /** The first message of the run. */
  start(): Message {
    return this.emit() as Message;
  }

  /** Take the responder's answer: learn from it, then ask what is left. */
  receive(msg: Message): ReconcileStep | ReconcileRefusal {
    if (this.inflight.length === 0) return refuse('no message of this run awaits an answer');
    const learned: Learned = { have: [], need: [] };
    const found: Work[] = [];
    const sent = this.inflight.length;
    let lower: Key = MIN_KEY;
    let ask = 0;
    for (let k = 0; k < msg.ranges.length; k++) {
      const r = msg.ranges[k];
      // An honest responder answers only inside what it was asked, and a range answered is not asked again. Items or
      // a fingerprint over keys not asked about cost this side every item there, so a few bytes over the whole key
      // space, sent at every round, had it compare its whole set each round (test/hostile/reconcile-answer-cost.spec.ts).
      if (r[1] !== MODE.skip && r[1] !== MODE.defer && (ask = askHolding(this.inflight, ask, lower, r[0])) < 0) {
        return refuse(`range ${k}: it answers keys that were not asked about`);
      }
      const fault = this.take(r, spanOf(this.set, lower, r[0]), { lower, found, learned });
      if (fault) return refuse(`range ${k}: ${fault}`);
      if (r[0] !== null) lower = r[0];
    }
    this.backlog = mergeWork(this.backlog, found);
    // A defer is an answer's last range: the asks from its lower bound on were put back, those before it answered.
    const last = msg.ranges[msg.ranges.length - 1];
    const deferred = last[1] === MODE.defer ? this.inflight.filter((w) => compareBounds(w.lower, lower) >= 0).length : -1;
    this.room = deferred < 0 ? 2 * this.room : Math.max(1, 2 * (sent - deferred));
    this.inflight = [];
    return { ok: true, next: this.emit(), have: fresh(this.had, learned.have), need: fresh(this.needed, learned.need) };
  }

  /** One range of an answer; a fault is a reason to refuse the whole answer. */
  private take(r: Range, span: Span, at: { lower: Key; found: Work[]; learned: Learned }): string | null {
    if (r[1] === MODE.fingerprint && fingerprintSpan(this.set, span) !== r[2]) {
      append(at.found, workFor(this.set, { lower: at.lower, upper: r[0] }, this.p.branching, this.p.listBelow));
    } else if (r[1] === MODE.items) {
      const items = r[2];
      const d = compareSpan(this.set, span, items.map((x) => x[1]));
      append(at.learned.have, d.mine);
      append(at.learned.need, d.theirs.map((m) => items[m][0]));
    } else if (r[1] === MODE.diff) {
      return this.takeDiff(span, r[2], r[3], at.learned);
    } else if (r[1] === MODE.defer) {
      append(at.found, this.inflight.filter((w) => compareBounds(w.lower, at.lower) >= 0));
    } else if (r[1] === MODE.tags) {
      return 'an initiator is sent no tags';
    }
    return null;
  }

  /** A diff answers tags of ours: `want` names our items by position in the range. */
  private takeDiff(span: Span, give: string[], want: number[], learned: Learned): string | null {
    const count = span.j - span.i;
    const past = want.find((m) => m >= count);
    if (past !== undefined) return `want names item ${past} of a range holding ${count}`;
    for (const m of want) learned.have.push(this.set.item(span.i + m).id);
    append(learned.need, give);
    return null;
  }

  /**
   * Ask about the backlog in key order while the frame has room; the rest
   * waits for the next round. One ask always fits an empty frame (at most
   * 1024 tags and two bounds, see MIN_FRAME_LIMIT). Null when nothing is
   * left: the run is over.
   */
  private emit(): Message | null {
    const frame = new Frame(this.p.frameLimit);
    let k = 0;
    for (; k < this.backlog.length && this.inflight.length < this.room; k++) {
      const w = this.backlog[k];
      const end = frame.end();
      // Overlap with what is in: only an answer that strays outside our asks makes it; drop it.
      if (end === null || compareBounds(w.lower, end) < 0) continue;
      const out = workRanges(this.set, w, end);
      if (frame.busy && !frame.fits(rangesBytes(out), CLOSE_BYTES)) break;
      frame.add(out);
      this.inflight.push(w);
    }
    this.backlog = this.backlog.slice(k);
    if (!frame.busy) return null;
    if (frame.end() !== null) frame.add([[null, MODE.skip]]);
    return frame.message();
  }
}

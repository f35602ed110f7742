/**
 * Delivery latency as a user feels it: from the moment a writer got the
 * hub's acknowledgement of a write to the moment that write reached another
 * peer's feed, one figure per (write, receiving peer).
 *
 * The clock is `performance.timeOrigin + performance.now()`: the wall clock
 * at the process's start plus a monotonic offset, in ms with sub-ms
 * precision. Peers in child processes on the same machine read the same
 * kernel clock, so their figures compare to well under a millisecond unless
 * the wall clock is stepped during the run (NTP); process.hrtime() would not
 * do, as its origin is arbitrary per process.
 *
 * A write may reach a peer before its writer's ack reaches this process (the
 * hub fans out before it answers, and acks of other processes are relayed):
 * the arrival waits here until the ack is known; one before the ack counts 0.
 */

const ORIGIN = performance.timeOrigin;
/** Milliseconds since the epoch, comparable across processes of one machine (timeOrigin read once: its getter is not free). */
export const clock = (): number => ORIGIN + performance.now();

/** Histogram buckets: 1 ms each up to this bound; longer deliveries count in the last one (max keeps the true figure). */
const BUCKETS = 120_000;

/** What a Delivery holds, to send between processes and merge. */
export interface DeliveryFigures {
  /** Counts per whole millisecond; index BUCKETS - 1 collects anything longer. */
  counts: number[];
  max: number;
  /** Arrivals whose write's ack never became known (a write of a full peer, or one never acknowledged). */
  unmatched: number;
}

/** p50 / p99 / max in ms, and how many deliveries were measured. */
export interface DeliverySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * One write as the deliveries of a process see it: when its writer got the
 * hub's ack (NaN until known), and arrivals made before that.
 */
export interface WriteRef {
  acked: number;
  early?: number[];
}

export class Delivery {
  private readonly refs = new Map<string, WriteRef>();
  private readonly counts = new Uint32Array(BUCKETS);
  private max = 0;

  /**
   * The write `key` (`origin#seq`): one object per key for the process, so a
   * page decoded once resolves its writes once, not once per peer that takes it.
   */
  ref(key: string): WriteRef {
    let r = this.refs.get(key);
    if (!r) this.refs.set(key, (r = { acked: NaN }));
    return r;
  }

  /** The writer of `key` (`origin#seq`) got the hub's ack at `at`. */
  ack(key: string, at: number): void {
    const r = this.ref(key);
    r.acked = at;
    const early = r.early;
    if (!early) return;
    r.early = undefined;
    for (const t of early) this.add(t - at);
  }

  /** Write `key` reached one peer of this process at `at`. */
  arrive(key: string, at: number): void {
    this.arriveRef(this.ref(key), at);
  }

  /** The write of `r` reached one peer of this process at `at`. */
  arriveRef(r: WriteRef, at: number): void {
    if (r.acked === r.acked) return this.add(at - r.acked);
    if (r.early) r.early.push(at);
    else r.early = [at];
  }

  figures(): DeliveryFigures {
    let unmatched = 0;
    for (const r of this.refs.values()) unmatched += r.early?.length ?? 0;
    return { counts: Array.from(this.counts), max: this.max, unmatched };
  }

  private add(ms: number): void {
    const v = ms > 0 ? ms : 0;
    this.counts[v < BUCKETS - 1 ? Math.floor(v) : BUCKETS - 1]++;
    if (v > this.max) this.max = v;
  }
}

/** Several processes' figures as one. */
export function mergeDelivery(all: DeliveryFigures[]): DeliveryFigures {
  const counts = new Array<number>(BUCKETS).fill(0);
  for (const f of all) f.counts.forEach((n, i) => { counts[i] += n; });
  return { counts, max: Math.max(0, ...all.map((f) => f.max)), unmatched: all.reduce((n, f) => n + f.unmatched, 0) };
}

/** Percentiles by nearest rank over the histogram (a bucket reads as its upper edge, the top one as max). */
export function summarize(f: DeliveryFigures): DeliverySummary {
  const count = f.counts.reduce((a, b) => a + b, 0);
  const at = (p: number) => {
    if (count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * count));
    let seen = 0;
    for (let i = 0; i < f.counts.length; i++) {
      seen += f.counts[i];
      if (seen >= rank) return i === f.counts.length - 1 ? f.max : Math.min(i + 1, f.max);
    }
    return f.max;
  };
  return { count, p50: at(50), p99: at(99), max: f.max };
}

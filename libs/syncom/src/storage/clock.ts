/**
 * The node's clock (Clocks): Date.now(), never backwards, never behind a stamp
 * seen (a peer's op, a joined snapshot, the own log on reopen). Each own stamp
 * is strictly greater than every stamp made or seen (DESIGN: CLK-4, CLK-5, CLK-9),
 * so (ts, origin) is unique per op and a write that follows a read outranks it.
 */
export interface Clock {
  /** The stamp for the next own op. */
  next(): number;
  /** Take a stamp seen into account. */
  observe(ts: number): void;
  /** The wall clock as injected. */
  now(): number;
  /** The newest stamp made or seen. */
  readonly last: number;
}

/** A clock over an injected wall clock (Date.now by default). */
export function createClock(now: () => number = Date.now, seed = 0): Clock {
  let last = seed;
  return {
    next() {
      last = Math.max(now(), last + 1);
      return last;
    },
    observe(ts: number) {
      if (ts > last) last = ts;
    },
    now,
    get last() {
      return last;
    },
  };
}

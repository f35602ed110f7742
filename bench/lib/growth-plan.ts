/** What the growth suite (suites/growth.ts) asks its worker (children/growth-process.ts) to measure, and what it answers. */

/** What to measure at one store size. */
export interface SizePlan {
  n: number;
  insert: boolean;
  get: boolean;
  memory: boolean;
  /** Timed bootstraps at this size (none when null), and whether one more goes first as a warm-up. */
  bootstrap: { runs: number; warmup: boolean } | null;
}

export interface GrowthPlan {
  sizes: SizePlan[];
  /** Timed runs of the insert and get figures; each is preceded by one warm-up. */
  runs: number;
  /** Readings of the heap and RSS figures, after one more read as warm-up. */
  memoryRuns: number;
  /** get() calls per run. */
  getOps: number;
}

/** Samples at one size, warm-up first: rates in ops/s, heaps in bytes a record, RSS in MB. */
export interface SizeSamples {
  insert?: number[];
  /** Inserts behind each insert sample. */
  insertOps?: number;
  get?: number[];
  bootstrap?: number[];
  dialerHeap?: number[];
  heap?: number[];
  rss?: number[];
}

/** The smallest slice of the fill an insert sample is taken from: below it, each sample fills a fresh store. */
export const MIN_SLICE = 500;

/**
 * The inserts behind one insert sample at size n, given `samples` samples
 * (warm-up included): the inserts from n/2 to n cut into that many slices,
 * each a whole number of hundreds (with 100 in flight, group commits of 100
 * end on their edges), the last ending at n; 0 when a slice would be under
 * MIN_SLICE (each sample then fills a fresh store to n).
 */
export function sliceOf(n: number, samples: number): number {
  const slice = Math.floor(n / 2 / samples / 100) * 100;
  return slice >= MIN_SLICE ? slice : 0;
}

/** 1000 -> '1k', 1000000 -> '1M'. */
export function label(n: number): string {
  return n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : `${n}`;
}

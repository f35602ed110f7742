/** How much work a run does: `--quick` or the full default. */
export interface Profile {
  quick: boolean;
  /** Timed runs per benchmark, after one warm-up run. */
  runs: number;
}

/**
 * What a figure counts: a rate (ops/s), a latency (ms), memory (MB), bytes
 * on the wire (bytes) or the round trips of a reconciliation. Mostly rates
 * are divided by a baseline (the peers' bytes are too: bench/README.md,
 * "Peers").
 */
export type Unit = 'ops/s' | 'µs/op' | 'ms' | 'MB' | 'KB' | 'bytes' | 'round trips';

/**
 * One benchmark. `run()` does one run: it prepares what it needs untimed (a
 * fresh storage, a record to update), times `ops` operations, cleans up, and
 * returns the milliseconds of the timed part only. A benchmark in ms or MB
 * returns its run's figure itself instead (a percentile of that run's
 * latencies, a memory delta); `ops` is then the samples or records behind it.
 */
export interface Benchmark {
  name: string;
  unit: Unit;
  /** The benchmark this one is compared with (its ratio's denominator), or null for a baseline. */
  baseline: string | null;
  /** Figures it reads (lib/figures.ts) besides its baseline: selected and measured before it. */
  needs?: readonly string[];
  /**
   * A baseline cheap enough to measure again beside each figure compared with
   * it (run.ts, "brackets"): 'measured' runs again, 'computed' is worked out
   * again from the figures it needs. Unset: the baseline's own row is used.
   */
  bracket?: 'measured' | 'computed';
  /** Operations per run. */
  ops: number;
  /** Timed runs, when not the profile's (the peers' runs at 100k: 5; the growth suite's 1M bootstrap: 1). */
  runs?: number;
  /** false: no warm-up run before the timed ones (the growth suite's 1M bootstrap, about 80 s a run). Default true. */
  warmup?: boolean;
  /** One run; it may throw a BenchTimeout (lib/timeout.ts), recorded as a timeout rather than a failure. */
  run(): Promise<number>;
}

/**
 * A group of benchmarks sharing state (the 100k-record store of the reads, the
 * hub of the bootstrap).
 * `setup()` runs only when one of its benchmarks is selected; it is given the
 * names selected, so it may prepare only what they need.
 */
export interface Suite {
  benchmarks: Benchmark[];
  setup?(selected: ReadonlySet<string>): Promise<void>;
  teardown?(): Promise<void>;
}

/** One line of bench/results/*.json. */
export interface Result {
  name: string;
  /** The median of the runs; null for a timeout. */
  value: number | null;
  unit: string;
  baseline: string | null;
  /** value / the baseline's value, measured in the same invocation; null for a baseline or a timeout on either side. */
  ratio: number | null;
  min: number | null;
  max: number | null;
  /** Timed runs behind the median (the warm-up run is not counted); 0 for a timeout. */
  runs: number;
  /** Set when a run passed its cap: the cap in ms (value, min and max are then null). */
  timeout?: number;
  /**
   * The baseline's median over the runs made just before and just after this
   * figure's (its bracket), which `ratio` divides by; absent where the ratio
   * divides by the baseline's own row.
   */
  baselineValue?: number;
}

/** The figures a benchmark reads: its baseline, then its `needs`. */
export function readsOf(bench: Benchmark): string[] {
  return [...(bench.baseline === null ? [] : [bench.baseline]), ...(bench.needs ?? [])];
}

/** How much work a run does: `--quick` or the full default. */
export interface Profile {
  quick: boolean;
  /** Timed runs per benchmark, after one warm-up run. */
  runs: number;
}

/**
 * What a figure counts: a rate (ops/s), a latency (ms) or memory (MB). Only
 * rates are divided by a baseline.
 */
export type Unit = 'ops/s' | 'ms' | 'MB';

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
  /** Operations per run. */
  ops: number;
  run(): Promise<number>;
}

/**
 * A group of benchmarks sharing state (the 100k-record store of the reads, the
 * hub of the bootstrap).
 * `setup()` runs only when one of its benchmarks is selected.
 */
export interface Suite {
  benchmarks: Benchmark[];
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
}

/** One line of bench/results/*.json. */
export interface Result {
  name: string;
  /** The median of the runs. */
  value: number;
  unit: string;
  baseline: string | null;
  /** value / the baseline's value, measured in the same invocation; null for a baseline. */
  ratio: number | null;
  min: number;
  max: number;
  /** Timed runs behind the median (the warm-up run is not counted). */
  runs: number;
}

import type { Benchmark } from './types';

/** The median, min and max of a benchmark's timed runs, in its unit, or the cap a run passed (lib/timeout.ts). */
export type Measurement = { median: number; min: number; max: number; runs: number } | { timeout: number };

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A run's figure in the benchmark's unit: a rate from the elapsed ms of a rate's run, else what the run returned. */
export function valueOf(bench: Benchmark, x: number): number {
  return bench.unit === 'ops/s' ? bench.ops / (x / 1000) : x;
}

/**
 * Run a benchmark once to warm up (JIT, file system caches; unless its
 * `warmup` is false), then `runs` times, and turn each run's elapsed time into
 * a rate (a figure in any other unit is taken as the run returns it).
 *
 * @throws TypeError when `runs` is below 1.
 */
export async function measure(bench: Benchmark, runs: number): Promise<Measurement> {
  if (!(runs >= 1)) throw new TypeError(`measure: runs must be at least 1, not ${runs}`);
  if (bench.warmup !== false) await bench.run();
  const values: number[] = [];
  for (let i = 0; i < runs; i++) {
    const x = await bench.run();
    values.push(valueOf(bench, x));
  }
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs };
}

/** The q-quantile (0..1) of a non-empty list, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * One run's product read by several benchmarks (the p50 and the p99 of the
 * same latency samples): a reader takes the oldest product it has not read,
 * or, with none waiting, makes a new one that every other reader then reads
 * once. So the figures share their runs, warm-up included, and a reader run
 * alone (--filter) still makes its own.
 */
export class SharedRuns<T> {
  private readonly waiting = new Map<string, T[]>();

  constructor(private readonly readers: readonly string[], private readonly produce: () => Promise<T>) {}

  async take(reader: string): Promise<T> {
    const queue = this.waiting.get(reader);
    if (queue?.length) return queue.shift() as T;
    const product = await this.produce();
    for (const r of this.readers) {
      if (r === reader) continue;
      const q = this.waiting.get(r) ?? [];
      this.waiting.set(r, q);
      q.push(product);
    }
    return product;
  }
}

/** Milliseconds taken by `fn`, timed with the monotonic clock. */
export async function timed(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Call `op(i)` for i = 0..count-1 with at most `width` calls outstanding: a
 * sliding window, each finished call starting the next one.
 */
export async function inFlight(count: number, width: number, op: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await op(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
}

/** Call `op(i)` for i = 0..count-1, each awaited before the next starts. */
export async function oneByOne(count: number, op: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i++) await op(i);
}

import type { Benchmark } from './types';

/** The median, min and max of a benchmark's timed runs, in its unit. */
export interface Measurement {
  median: number;
  min: number;
  max: number;
  runs: number;
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Run a benchmark once to warm up (JIT, file system caches), then `runs`
 * times, and turn each run's elapsed time into a rate.
 *
 * @throws TypeError when `runs` is below 1.
 */
export async function measure(bench: Benchmark, runs: number): Promise<Measurement> {
  if (!(runs >= 1)) throw new TypeError(`measure: runs must be at least 1, not ${runs}`);
  await bench.run();
  const rates: number[] = [];
  for (let i = 0; i < runs; i++) {
    const ms = await bench.run();
    rates.push(bench.ops / (ms / 1000));
  }
  return { median: median(rates), min: Math.min(...rates), max: Math.max(...rates), runs };
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

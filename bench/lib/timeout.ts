import { recordFigure } from './figures';
import { measure, type Measurement } from './measure';
import type { Benchmark } from './types';

/**
 * A run that passed its benchmark's time cap. run.ts records the figure as a
 * timeout (no value, the cap in the results line) instead of failing the
 * whole invocation: a slow system is a result, not an error.
 */
export class BenchTimeout extends Error {
  constructor(readonly capMs: number, message: string) {
    super(message);
    this.name = 'BenchTimeout';
  }
}

/** `promise`, or a BenchTimeout after `capMs` (the promise is left to settle on its own). */
export function capped<T>(promise: Promise<T>, capMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BenchTimeout(capMs, `${what}: over ${capMs / 1000} s`)), capMs);
  });
  return Promise.race([promise, cap]).finally(() => clearTimeout(timer));
}

/** measure() with the benchmark's own run count if it has one; a BenchTimeout becomes a timeout measurement. */
export async function measureOrTimeout(bench: Benchmark, runs: number): Promise<Measurement> {
  try {
    const m = await measure(bench, bench.runs ?? runs);
    if (!('timeout' in m)) recordFigure(bench.name, m.median);
    return m;
  } catch (e) {
    if (e instanceof BenchTimeout) {
      process.stderr.write(`  ${bench.name}: ${e.message}\n`);
      return { timeout: e.capMs };
    }
    throw e;
  }
}

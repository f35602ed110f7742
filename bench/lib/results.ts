import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Measurement } from './measure';
import type { Benchmark, Result } from './types';

/** Round to `digits` significant digits (results files stay readable in a diff). */
const round = (x: number, digits: number) => Number(x.toPrecision(digits));

/**
 * Results lines from measurements: each ratio divides by its baseline's
 * median from the same invocation, measured beside the figure where it was
 * bracketed (baselineValue, lib/brackets.ts), else the baseline's own row. A
 * timeout, its own or its baseline's, leaves the ratio null; its own leaves
 * value, min and max null too.
 *
 * @throws Error when a benchmark's baseline was not measured.
 */
export function toResults(measured: readonly { bench: Benchmark; m: Measurement; baselineValue?: number }[]): Result[] {
  const medians = new Map(measured.map(({ bench, m }) => [bench.name, 'timeout' in m ? null : m.median]));
  return measured.map(({ bench, m, baselineValue }) => {
    const row = bench.baseline === null ? undefined : medians.get(bench.baseline);
    if (bench.baseline !== null && row === undefined) throw new Error(`${bench.name}: its baseline ${bench.baseline} was not measured`);
    const base = baselineValue ?? row;
    if ('timeout' in m) {
      return { name: bench.name, value: null, unit: bench.unit, baseline: bench.baseline, ratio: null, min: null, max: null, runs: 0, timeout: m.timeout };
    }
    return {
      name: bench.name, value: round(m.median, 4), unit: bench.unit, baseline: bench.baseline, ratio: base === undefined || base === null ? null : round(m.median / base, 4),
      min: round(m.min, 4), max: round(m.max, 4), runs: m.runs,
      ...(baselineValue !== undefined && { baselineValue: round(baselineValue, 4) }),
    };
  });
}

/** A file-name-safe ISO date: 2025-01-31T09-15-00Z (no colons, which some file systems refuse). */
export function stampOf(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** Write `<dir>/latest.json` and `<dir>/<ISO date>.json`; returns their paths. */
export function writeResults(dir: string, results: readonly Result[], date = new Date()): string[] {
  mkdirSync(dir, { recursive: true });
  const text = JSON.stringify(results, null, 2) + '\n';
  const paths = [join(dir, 'latest.json'), join(dir, `${stampOf(date)}.json`)];
  for (const p of paths) writeFileSync(p, text);
  return paths;
}

import type { Result } from './types';

/** A rate with thousands separators and 3 significant digits below 1000. */
export function formatNumber(x: number): string {
  if (x >= 1000) return Math.round(x).toLocaleString('en-US');
  return x.toPrecision(3);
}

function row(r: Result): string[] {
  const range = r.min === null || r.max === null ? '' : `${formatNumber(r.min)} – ${formatNumber(r.max)}`;
  const value = r.value === null ? `timeout (> ${(r.timeout ?? 0) / 1000} s)` : formatNumber(r.value);
  const beside = r.baselineValue === undefined ? '' : formatNumber(r.baselineValue);
  return [r.name, value, r.unit, range, r.baseline ?? '', beside, r.ratio === null ? '' : r.ratio.toPrecision(3)];
}

/**
 * The results as an aligned text table: name, median, unit, min–max,
 * baseline, the baseline's figure measured beside this one (where it was
 * bracketed, lib/brackets.ts), ratio.
 */
export function formatTable(results: readonly Result[]): string {
  const head = ['name', 'median', 'unit', 'min – max', 'baseline', 'beside', 'ratio'];
  const rows = [head, ...results.map(row)];
  const widths = head.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const numeric = new Set([1, 3, 5, 6]);
  const line = (r: string[]) => r.map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

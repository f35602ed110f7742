import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from '../lib/types';

/** One system's line: N -> changes/s, or null where it timed out. */
type Series = { system: string; points: { n: number; rate: number | null }[] };

const FIGURE = /^peers\/([^/]+)\/n=(\d+)k\/throughput$/;
const COLORS = ['#1f77b4', '#6baed6', '#d62728', '#2ca02c', '#9467bd', '#8c564b'];
const W = 720;
const H = 420;
const M = { left: 70, right: 160, top: 40, bottom: 50 };

/** The throughput figures of the peers comparison, one series per system, in the results' order. */
export function peerSeries(results: readonly Result[]): Series[] {
  const bySystem = new Map<string, Series>();
  for (const r of results) {
    const m = FIGURE.exec(r.name);
    if (!m) continue;
    const series = bySystem.get(m[1]) ?? { system: m[1], points: [] };
    bySystem.set(m[1], series);
    series.points.push({ n: Number(m[2]) * 1000, rate: r.value });
  }
  return [...bySystem.values()];
}

/** A log10 scale from [lo, hi] onto [a, b]. */
const logScale = (lo: number, hi: number, a: number, b: number) => (x: number) =>
  Math.round((a + ((Math.log10(x) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (b - a)) * 10) / 10;

const short = (x: number) => (x >= 1000 ? `${x / 1000}k` : String(x));

/** The axes: a tick at each N, a grid line at each power of ten of the rates. */
function axes(ns: number[], yLo: number, yHi: number, x: (n: number) => number, y: (r: number) => number): string[] {
  const out = [`<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom}" fill="none" stroke="#888"/>`];
  for (let d = yLo; d <= yHi; d *= 10) {
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(d)}" y2="${y(d)}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 8}" y="${y(d) + 4}" text-anchor="end">${short(d)}</text>`);
  }
  for (const n of ns) out.push(`<text x="${x(n)}" y="${H - M.bottom + 18}" text-anchor="middle">${short(n)}</text>`);
  out.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">N changes (log)</text>`);
  out.push(`<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">changes/s until caught up (log)</text>`);
  return out;
}

/** One system's polyline, its points, a cross at the bottom where it timed out, and its legend entry. */
function line(s: Series, i: number, x: (n: number) => number, y: (r: number) => number): string[] {
  const color = COLORS[i % COLORS.length];
  const done = s.points.filter((p) => p.rate !== null) as { n: number; rate: number }[];
  const out = [`<polyline fill="none" stroke="${color}" stroke-width="2" points="${done.map((p) => `${x(p.n)},${y(p.rate)}`).join(' ')}"/>`];
  for (const p of done) out.push(`<circle cx="${x(p.n)}" cy="${y(p.rate)}" r="3.5" fill="${color}"><title>${s.system}, N=${short(p.n)}: ${Math.round(p.rate)} changes/s</title></circle>`);
  for (const p of s.points.filter((q) => q.rate === null)) {
    const [cx, cy] = [x(p.n), H - M.bottom - 8 - 10 * i];
    out.push(`<text x="${cx}" y="${cy}" fill="${color}" text-anchor="middle">× timeout<title>${s.system}, N=${short(p.n)}: timed out</title></text>`);
  }
  const ly = M.top + 10 + 20 * i;
  out.push(`<line x1="${W - M.right + 12}" x2="${W - M.right + 36}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
  out.push(`<text x="${W - M.right + 42}" y="${ly + 4}">${s.system}</text>`);
  return out;
}

/** The SVG text of the chart: log N across, log changes/s up, one line per system, a legend. */
export function chartSvg(series: readonly Series[], title: string): string {
  const ns = [...new Set(series.flatMap((s) => s.points.map((p) => p.n)))].sort((a, b) => a - b);
  const rates = series.flatMap((s) => s.points.flatMap((p) => (p.rate === null ? [] : [p.rate])));
  const yLo = 10 ** Math.floor(Math.log10(Math.min(...rates)));
  const yHi = 10 ** Math.ceil(Math.log10(Math.max(...rates)));
  const x = logScale(ns[0] / 2, ns[ns.length - 1] * 2, M.left, W - M.right);
  const y = logScale(yLo, yHi, H - M.bottom, M.top);
  const body = [...axes(ns, yLo, yHi, x, y), ...series.flatMap((s, i) => line(s, i, x, y))];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="24" font-size="14">${title}</text>`,
    ...body.map((e) => `  ${e}`),
    '</svg>',
    '',
  ].join('\n');
}

/** Writes `<dir>/throughput.svg` when the results hold the peers' throughput figures; returns the paths written. */
export function writePeersChart(dir: string, results: readonly Result[], date = new Date()): string[] {
  const series = peerSeries(results);
  if (!series.some((s) => s.points.some((p) => p.rate !== null))) return [];
  const path = join(dir, 'throughput.svg');
  writeFileSync(path, chartSvg(series, `Writer to caught-up reader, changes/s (median), ${date.toISOString().slice(0, 10)}`));
  return [path];
}

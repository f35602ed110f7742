import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { withFigures } from './figures';
import { median, valueOf } from './measure';
import { type Benchmark, readsOf } from './types';

/**
 * Rounds of a bracket on each side of its figure: each round runs every
 * measured baseline of the bracket once. Two before and two after: a median
 * of four runs taken within seconds of the figure's own.
 */
const BRACKET_ROUNDS = 2;

/**
 * The baselines a figure is compared with, to measure again beside it: its
 * baseline and everything that one reads (its own baseline, its `needs`),
 * dependencies first. Undefined when the figure has no baseline or one of
 * them is not marked `bracket` (a peer system's figure, a growth figure at
 * 1k), and for a bracketable baseline itself: that figure divides by the
 * baseline's own row.
 *
 * Why: the baselines run first, and a figure measured half an hour later on
 * a shared machine can meet a different machine (signing alone moved from
 * 19,700 to 29,000/s between quick runs minutes apart). Dividing by baseline
 * runs made just before and after the figure keeps the ratio a comparison
 * of two things measured under the same load.
 */
export function bracketOf(bench: Benchmark, byName: ReadonlyMap<string, Benchmark>): Benchmark[] | undefined {
  // A baseline itself (the crypto bound, worked out from the start's figures) keeps its row's ratio.
  if (bench.baseline === null || bench.bracket) return undefined;
  const order: Benchmark[] = [];
  const seen = new Set<string>();
  const visit = (name: string): boolean => {
    if (seen.has(name)) return true;
    seen.add(name);
    const b = byName.get(name);
    if (!b?.bracket || !readsOf(b).every(visit)) return false;
    order.push(b);
    return true;
  };
  return readsOf(bench).every(visit) ? order : undefined;
}

/** One side's runs of a bracket: the values of each measured baseline, by name. */
export type BracketRuns = Map<string, number[]>;

/** The machine counts as quiet when its cores were busy at most this share of a QUIET_WINDOW_MS window. */
const QUIET_SHARE = 0.2;
const QUIET_WINDOW_MS = 100;
/** How long a bracket waits for quiet at most before it runs anyway. */
const QUIET_MAX_MS = 10_000;

/** The machine's busy and total CPU time so far, every core (ms). */
function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const t = times.user + times.nice + times.sys + times.irq + times.idle;
    total += t;
    busy += t - times.idle;
  }
  return { busy, total };
}

/**
 * Waits until the machine's cores are quiet (QUIET_SHARE over a window), at
 * most QUIET_MAX_MS. A figure's own work can outlast its runs (a bootstrap's
 * merge ops signed in the background, a browser or a hub process winding
 * down): a baseline run in that tail would be slowed by the figure it is
 * compared with, and the ratio flattered.
 */
async function quiet(): Promise<void> {
  const until = performance.now() + QUIET_MAX_MS;
  let last = cpuTimes();
  while (performance.now() < until) {
    await sleep(QUIET_WINDOW_MS);
    const now = cpuTimes();
    const busy = now.total > last.total ? (now.busy - last.busy) / (now.total - last.total) : 0;
    last = now;
    if (busy <= QUIET_SHARE) return;
  }
}

/** `rounds` rounds of the bracket's measured baselines, added to `into`, once the machine is quiet (`settle`: quiet). */
export async function bracketRuns(bracket: readonly Benchmark[], rounds: number, into: BracketRuns = new Map(), settle = quiet): Promise<BracketRuns> {
  await settle();
  for (let r = 0; r < rounds; r++) {
    for (const b of bracket) {
      if (b.bracket !== 'measured') continue;
      const values = into.get(b.name) ?? [];
      into.set(b.name, values);
      values.push(valueOf(b, await b.run()));
    }
  }
  return into;
}

/**
 * The bracket's figure for `name`: a measured baseline's median over `runs`,
 * a computed one worked out again from those medians (in dependency order,
 * each seeing the ones before it).
 */
export async function bracketFigure(bracket: readonly Benchmark[], runs: BracketRuns, name: string): Promise<number | undefined> {
  const figures = new Map<string, number>();
  for (const b of bracket) {
    if (b.bracket === 'measured') {
      const values = runs.get(b.name);
      if (values?.length) figures.set(b.name, median(values));
    } else {
      const v = valueOf(b, await withFigures(figures, () => b.run()));
      figures.set(b.name, v);
    }
  }
  return figures.get(name);
}

/**
 * `measure()` of a figure, with its bracket's baselines run just before and
 * just after it where it has one (bracketOf), and the baseline's value
 * beside it from those runs (undefined without a bracket).
 */
export async function measureBracketed<T>(bench: Benchmark, byName: ReadonlyMap<string, Benchmark>, measure: () => Promise<T>): Promise<{ result: T; baselineValue?: number }> {
  const bracket = bracketOf(bench, byName);
  if (!bracket) return { result: await measure() };
  const runs = await bracketRuns(bracket, BRACKET_ROUNDS);
  const result = await measure();
  await bracketRuns(bracket, BRACKET_ROUNDS, runs);
  return { result, baselineValue: await bracketFigure(bracket, runs, bench.baseline as string) };
}

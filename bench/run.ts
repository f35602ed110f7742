import { join } from 'node:path';
import { parseArgs, USAGE } from './lib/args';
import { measureBracketed } from './lib/brackets';
import type { Measurement } from './lib/measure';
import { toResults, writeResults } from './lib/results';
import { formatNumber, formatTable } from './lib/table';
import { removeTempRoot } from './lib/temp';
import { measureOrTimeout } from './lib/timeout';
import { type Benchmark, type Profile, readsOf, type Suite } from './lib/types';
import { baselineSuite } from './suites/baselines';
import { bootstrapSuite } from './suites/bootstrap';
import { growthSuite } from './suites/growth';
import { writePeersChart } from './peers/chart';
import { localWritesSuite } from './suites/local-writes';
import { peersSuites } from './suites/peers-sync';
import { readsSuite } from './suites/reads';
import { reconcileSuites } from './suites/reconcile';
import { replicationSuite } from './suites/replication';
import { socketIoSuite } from './suites/socketio';
import { browserBundleSuite } from './suites/browser-bundle';
import { browserSuite } from './suites/browser';
import { fanoutSuite } from './suites/fanout';
import { largeRecordsSuite } from './suites/large-records';

/** Baselines first: every ratio needs its baseline measured in the same invocation. */
const suitesOf = (profile: Profile): Suite[] => [
  baselineSuite(profile), localWritesSuite(profile), readsSuite(profile), replicationSuite(profile), socketIoSuite(profile),
  bootstrapSuite(profile), growthSuite(profile), largeRecordsSuite(profile), ...reconcileSuites(profile), ...peersSuites(profile), fanoutSuite(profile),
  browserBundleSuite(profile), browserSuite(profile),
];

/**
 * Names to run: those matching a filter, plus the baselines they are compared
 * with, and theirs in turn (socket.io's baseline, the memory-link rate, has
 * ed25519.verify as its own).
 */
function selectNames(all: readonly Benchmark[], filters: readonly string[]): Set<string> {
  const byName = new Map(all.map((b) => [b.name, b]));
  const names = new Set<string>();
  const todo = all.filter((b) => filters.length === 0 || filters.some((f) => b.name.includes(f))).map((b) => b.name);
  while (todo.length) {
    const name = todo.pop() as string;
    if (names.has(name)) continue;
    names.add(name);
    const bench = byName.get(name);
    if (bench) todo.push(...readsOf(bench));
  }
  return names;
}

/** One figure measured, and where it was bracketed, its baseline's value beside it (lib/brackets.ts). */
type Measured = { bench: Benchmark; m: Measurement; baselineValue?: number };

/**
 * A suite's chosen figures, each measured after its suite's setup; a figure
 * whose baselines may be measured again (bracketOf) has them run just before
 * and just after its own runs, and its ratio divides by their median.
 */
async function runSuite(suite: Suite, names: Set<string>, runs: number, byName: ReadonlyMap<string, Benchmark>): Promise<Measured[]> {
  const chosen = suite.benchmarks.filter((b) => names.has(b.name));
  if (chosen.length === 0) return [];
  const out: Measured[] = [];
  await suite.setup?.(new Set(chosen.map((b) => b.name)));
  try {
    for (const bench of chosen) {
      const start = performance.now();
      const { result: m, baselineValue } = await measureBracketed(bench, byName, () => measureOrTimeout(bench, runs));
      const beside = baselineValue === undefined ? '' : `; ${bench.baseline} beside it ${formatNumber(baselineValue)}`;
      process.stderr.write(`  ${bench.name}: ${'timeout' in m ? 'timeout' : formatNumber(m.median)} ${bench.unit}${beside} (${((performance.now() - start) / 1000).toFixed(1)} s)\n`);
      out.push({ bench, m, ...(baselineValue !== undefined && { baselineValue }) });
    }
  } finally {
    await suite.teardown?.();
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.help) return void console.log(USAGE);
  const profile: Profile = { quick: args.quick, runs: args.quick ? 5 : 7 };
  const suites = suitesOf(profile);
  const all = suites.flatMap((s) => s.benchmarks);
  const names = selectNames(all, args.filters);
  const byName = new Map(all.map((b) => [b.name, b]));
  if (names.size === 0) throw new TypeError(`no benchmark matches ${args.filters.join(', ')}`);
  const started = performance.now();
  process.stderr.write(`syncom bench (${profile.quick ? 'quick' : 'full'}, ${names.size} benchmarks, median of ${profile.runs} runs after 1 warm-up)\n`);
  const measured = [];
  for (const suite of suites) measured.push(...(await runSuite(suite, names, profile.runs, byName)));
  const results = toResults(measured);
  console.log(formatTable(results));
  const files = writeResults(join(__dirname, 'results'), results);
  files.push(...writePeersChart(join(__dirname, 'results'), results));
  console.log(`\n${((performance.now() - started) / 1000).toFixed(1)} s; wrote ${files.map((f) => f.slice(process.cwd().length + 1)).join(', ')}`);
}

main()
  .catch((e: Error) => {
    console.error(e instanceof TypeError ? e.message : e);
    process.exitCode = 1;
  })
  .finally(removeTempRoot);

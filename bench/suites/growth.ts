import { type GrowthPlan, label, type SizePlan, type SizeSamples, sliceOf } from '../lib/growth-plan';
import { BenchChild } from '../lib/processes';
import type { Benchmark, Profile, Suite, Unit } from '../lib/types';

/** The store sizes (quick: 1k and 10k only, the rest would take minutes). */
const FULL_SIZES = [1_000, 10_000, 100_000, 1_000_000];
const QUICK_SIZES = [1_000, 10_000];
/** The size every other size is compared with: the ratio of a figure at n is its value at n over its value at 1k. */
const BASE = 1_000;
/** Heap and RSS readings per size (after one more, the warm-up): a gc'd heap barely moves between them. */
const MEMORY_RUNS = 3;
/** Bootstraps at 1M: one, without a warm-up (the code is warm from the smaller sizes), about 80 s. */
const MILLION_BOOTSTRAPS = 1;
/** Bootstraps at each smaller size with --quick (after a warm-up): --quick has about 10 s for this suite. */
const QUICK_BOOTSTRAPS = 3;
/** The worker's heap: a 1M store and a 1M dialer beside it take about 3 GB. */
const WORKER_HEAP_MB = 8_192;

type Kind = 'insert' | 'insert-cost' | 'get' | 'get-cost' | 'bootstrap' | 'heap-per-record' | 'dialer-heap-per-record' | 'rss';

const nameOf = (n: number, kind: Kind) => `growth/n=${label(n)}/${kind}`;
const NAME = /^growth\/n=(\d+[kM]?)\/(.+)$/;

/**
 * Figures as a store grows: insert rate and cost, get rate and cost, a fresh
 * dialer's bootstrap, and the heap and RSS, at 1k, 10k, 100k and 1M records
 * (quick: 1k, 10k). One worker process (children/growth-process.ts, large
 * heap) fills one fs store with 100 inserts in flight and measures at each
 * size on the way; this suite hands its samples to measure() one run at a
 * time. bench/README.md, "Growth", says how each is taken.
 */
export function growthSuite(profile: Profile): Suite {
  const sizes = profile.quick ? QUICK_SIZES : FULL_SIZES;
  const getOps = profile.quick ? 20_000 : 200_000;
  const boots = (n: number) => (n >= 1_000_000 ? { runs: MILLION_BOOTSTRAPS, warmup: false } : { runs: profile.quick ? QUICK_BOOTSTRAPS : profile.runs, warmup: true });
  const samples = new Map<number, SizeSamples>();
  let child: BenchChild | undefined;

  /** Reads the samples of one figure in order, warm-up first, each turned into what run() returns. */
  const reader = (n: number, pick: (s: SizeSamples) => number[] | undefined, as: (x: number) => number) => {
    let i = 0;
    return async () => {
      const list = pick(samples.get(n) ?? {});
      if (!list || i >= list.length) throw new Error(`growth: no sample ${i} at ${label(n)}`);
      return as(list[i++]);
    };
  };

  const benchmarks: Benchmark[] = [];
  const add = (n: number, kind: Kind, unit: Unit, ops: number, run: () => Promise<number>, extra: Partial<Benchmark> = {}) => {
    const baseline = n === BASE || kind === 'rss' ? null : nameOf(BASE, kind);
    benchmarks.push({ name: nameOf(n, kind), unit, baseline, ops, run, ...extra });
  };
  for (const n of sizes) {
    const slice = sliceOf(n, profile.runs + 1) || n / 2;
    // A rate is returned as the ms its ops took, so measure() turns it back into the rate.
    const ms = (ops: number) => (rate: number) => (ops * 1000) / rate;
    const us = (rate: number) => 1e6 / rate;
    add(n, 'insert', 'ops/s', slice, reader(n, (s) => s.insert, ms(slice)));
    add(n, 'insert-cost', 'µs/op', slice, reader(n, (s) => s.insert, us));
    add(n, 'get', 'ops/s', getOps, reader(n, (s) => s.get, ms(getOps)));
    add(n, 'get-cost', 'µs/op', getOps, reader(n, (s) => s.get, us));
    add(n, 'bootstrap', 'ops/s', n, reader(n, (s) => s.bootstrap, ms(n)), boots(n));
    add(n, 'dialer-heap-per-record', 'bytes', n, reader(n, (s) => s.dialerHeap, (x) => x), boots(n));
    add(n, 'heap-per-record', 'bytes', n, reader(n, (s) => s.heap, (x) => x), { runs: MEMORY_RUNS });
    add(n, 'rss', 'MB', n, reader(n, (s) => s.rss, (x) => x), { runs: MEMORY_RUNS });
  }

  /** The worker's plan: only the sizes and parts the selected figures need. */
  const planOf = (selected: ReadonlySet<string>): GrowthPlan => {
    const wanted = new Map<number, Set<string>>();
    for (const name of selected) {
      const m = NAME.exec(name);
      if (!m) continue;
      const n = sizes.find((x) => label(x) === m[1]) as number;
      wanted.set(n, (wanted.get(n) ?? new Set()).add(m[2]));
    }
    const plans: SizePlan[] = [...wanted].map(([n, kinds]) => ({
      n,
      insert: kinds.has('insert') || kinds.has('insert-cost'),
      get: kinds.has('get') || kinds.has('get-cost'),
      memory: kinds.has('heap-per-record') || kinds.has('rss'),
      bootstrap: kinds.has('bootstrap') || kinds.has('dialer-heap-per-record') ? boots(n) : null,
    }));
    return { sizes: plans, runs: profile.runs, memoryRuns: MEMORY_RUNS, getOps };
  };

  return {
    benchmarks,
    async setup(selected) {
      const plan = planOf(selected);
      if (plan.sizes.length === 0) return;
      child = await BenchChild.spawn('growth', 'bench/children/growth-process.ts', 180_000, [`--max-old-space-size=${WORKER_HEAP_MB}`]);
      const got = await child.request<Record<string, SizeSamples>>('run', plan);
      for (const [n, s] of Object.entries(got)) samples.set(Number(n), s);
    },
    async teardown() {
      await child?.stop();
      child = undefined;
    },
  };
}

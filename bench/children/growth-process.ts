import { open, type HostUnit, type Storage } from '../../libs/syncom/src';
import { heapAfterGc } from '../../libs/syncom/src/testing/heap';
import { serve } from '../lib/child-server';
import { inFlight, timed } from '../lib/measure';
import { bootstrapFrom, openDialer, seedFsKeys } from '../lib/nodes';
import { makeRecord, randomIndexes } from '../lib/record';
import { removeTemp, tempPath } from '../lib/temp';
import { type GrowthPlan, type SizeSamples, label, sliceOf } from '../lib/growth-plan';

/**
 * The growth suite's worker (suites/growth.ts), in a process of its own with
 * a large heap: one fs storage (durable off, signatures as open() makes them)
 * filled by inserts with 100 in flight, stopping at each size of the plan to
 * read its figures there: the rate of the inserts that took it there, get()
 * of random ids, a fresh dialer's bootstrap from it, the heap it holds.
 * Everything is measured here; the bench reads the samples.
 */

const WINDOW = 100;
/** Inserts into a scratch store before anything is timed: the JIT warms on the insert path. */
const WARM_INSERTS = 5_000;
/** Snapshot page size: the host unit's default, as in the bootstrap suite. */
const PAGE_SIZE = 500;

const log = (line: string) => process.stderr.write(`  growth: ${line}\n`);

/** An fs storage in a fresh temp directory, durable off, seeded with the process's sealing keys. */
async function openStore(name: string): Promise<{ path: string; storage: Storage }> {
  const path = tempPath(name);
  seedFsKeys(path);
  return { path, storage: await open({ path, durable: false }) };
}

/** Insert records from..to-1 with 100 in flight; stamps[i] is when the i-th insert to resolve resolved. */
async function fill(s: Storage, from: number, to: number, stamps: Float64Array): Promise<void> {
  let done = from;
  await inFlight(to - from, WINDOW, async (k) => {
    await s.insert(makeRecord(from + k));
    stamps[done++] = performance.now();
  });
}

/** The rate of the inserts a..b-1 (by resolution order, a > 0): from the resolution of insert a-1 to that of b-1. */
function sliceRate(stamps: Float64Array, a: number, b: number): number {
  return (b - a) / ((stamps[b - 1] - stamps[a - 1]) / 1000);
}

/** Samples of the insert rate at n from fresh stores: each filled to n, the rate of its inserts from n/2 to n. */
async function freshFills(n: number, samples: number): Promise<number[]> {
  const rates: number[] = [];
  const stamps = new Float64Array(n);
  for (let r = 0; r < samples; r++) {
    const { path, storage } = await openStore(`fresh-${label(n)}`);
    try {
      await fill(storage, 0, n, stamps);
      rates.push(sliceRate(stamps, n / 2, n));
    } finally {
      await storage.close();
      removeTemp(path);
    }
  }
  return rates;
}

async function getRates(s: Storage, n: number, samples: number, ops: number): Promise<number[]> {
  const ids = [...s.replica.records.keys()];
  if (ids.length !== n) throw new Error(`growth: the store holds ${ids.length} records, not ${n}`);
  const picks = randomIndexes(ops, n, 11);
  const rates: number[] = [];
  for (let r = 0; r < samples; r++) {
    const ms = await timed(async () => {
      for (let i = 0; i < ops; i++) {
        if ((await s.get(ids[picks[i]])) === undefined) throw new Error(`growth: get of record ${ids[picks[i]]} found nothing`);
      }
    });
    rates.push(ops / (ms / 1000));
  }
  return rates;
}

/** Bootstraps of fresh dialers from the store's unit: the rate, and the dialer's heap once it holds every record. */
async function bootstraps(unit: HostUnit, n: number, runs: number): Promise<{ rates: number[]; heap: number[] }> {
  const rates: number[] = [];
  const heap: number[] = [];
  for (let r = 0; r < runs; r++) {
    const dialer = await openDialer(`dialer-${label(n)}-${r}`, unit);
    try {
      const before = heapAfterGc();
      let records = 0;
      // 1M records at 13,000 a second is about 80 s: a loaded machine gets 15 minutes.
      const ms = await timed(async () => { records = await bootstrapFrom(dialer, 'memory://hub', 900_000); });
      if (records !== n) throw new Error(`growth: a dialer bootstrapped ${records} records, not ${n}`);
      rates.push(n / (ms / 1000));
      heap.push((heapAfterGc() - before) / n);
      log(`bootstrap of ${label(n)}: ${Math.round(n / (ms / 1000))} records/s, dialer heap ${Math.round(heap[heap.length - 1])} bytes a record`);
    } finally {
      await dialer.close();
    }
  }
  return { rates, heap };
}

async function run(plan: GrowthPlan): Promise<Record<number, SizeSamples>> {
  const sizes = [...plan.sizes].sort((a, b) => a.n - b.n);
  const max = sizes[sizes.length - 1].n;
  const out: Record<number, SizeSamples> = {};
  const samples = plan.runs + 1;
  const started = performance.now();

  // Warm the insert path (and create the process's sealing keys) on a scratch store.
  {
    const { path, storage } = await openStore('warm');
    await fill(storage, 0, WARM_INSERTS, new Float64Array(WARM_INSERTS));
    await storage.close();
    removeTemp(path);
  }
  // Sizes too small for slices of one fill: fresh stores, before the big one takes the heap.
  for (const p of sizes) {
    if (p.insert && sliceOf(p.n, samples) === 0) {
      out[p.n] = { insert: await freshFills(p.n, samples), insertOps: p.n / 2 };
      log(`inserts to ${label(p.n)} (fresh stores): ${out[p.n].insert?.map(Math.round).join(', ')} ops/s`);
    }
  }

  const stamps = new Float64Array(max);
  const { path, storage } = await openStore('growth');
  try {
    const unit = storage.sync.unit({ access: 'public', pageSize: PAGE_SIZE });
    await storage.replica.idle();
    const heap0 = heapAfterGc();
    let at = 0;
    for (const p of sizes) {
      const o = (out[p.n] ??= {});
      const slice = sliceOf(p.n, samples);
      const first = p.n - samples * slice;
      // The slices must not reach back over the last stop, whose pause (gets, bootstraps) is not insert time.
      if (p.insert && slice > 0 && first <= at) throw new Error(`growth: the slices at ${label(p.n)} reach back to the stop at ${label(at)}`);
      const t = performance.now();
      await fill(storage, at, p.n, stamps);
      at = p.n;
      await storage.replica.idle();
      log(`filled to ${label(p.n)}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
      if (p.insert && slice > 0) {
        o.insert = Array.from({ length: samples }, (_, k) => sliceRate(stamps, first + k * slice, first + (k + 1) * slice));
        o.insertOps = slice;
        log(`inserts at ${label(p.n)} (slices of ${slice}): ${o.insert.map(Math.round).join(', ')} ops/s`);
      }
      if (p.memory) {
        o.heap = [];
        o.rss = [];
        for (let r = 0; r <= plan.memoryRuns; r++) {
          o.heap.push((heapAfterGc() - heap0) / p.n);
          o.rss.push(process.memoryUsage().rss / 1e6);
        }
        log(`memory at ${label(p.n)}: heap ${Math.round(o.heap[1])} bytes a record, RSS ${Math.round(o.rss[1])} MB`);
      }
      if (p.get) {
        o.get = await getRates(storage, p.n, samples, plan.getOps);
        log(`get at ${label(p.n)}: ${o.get.map(Math.round).join(', ')} ops/s`);
      }
      if (p.bootstrap) {
        const b = await bootstraps(unit as HostUnit, p.n, p.bootstrap.runs + (p.bootstrap.warmup ? 1 : 0));
        o.bootstrap = b.rates;
        o.dialerHeap = b.heap;
      }
    }
  } finally {
    await storage.close();
    removeTemp(path);
  }
  log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

serve({ run: (args) => run(args as unknown as GrowthPlan) }, async () => undefined);

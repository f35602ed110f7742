import type { HostUnit, Storage } from '../../libs/syncom/src';
import { SharedRuns, timed } from '../lib/measure';
import { heapAfterGc } from '../../libs/syncom/src/testing';
import { bootstrapFrom, openDialer, openNode } from '../lib/nodes';
import { makeRecord } from '../lib/record';
import type { Benchmark, Profile, Suite } from '../lib/types';
import { PAGE_SIZE, PARSE_BASELINE } from './baselines';

const BATCH = 1_000;
const RATE = 'bootstrap/memory/100k';
const MEMORY = 'memory/100k-records';
/** Until every merge op of the bootstrap is signed too (they are signed in the background, after their page is readable). */
const SIGNED = 'bootstrap/memory/100k/signed';
/** Records the memory figure is scaled to. */
const PER = 100_000;

/**
 * Untimed: readable means listed, with their data, as soon as the bootstrap
 * resolved (before its merge ops are signed). A function of its own, so the
 * list is garbage before the heap figure is taken.
 */
async function checkListed(dialer: Storage, size: number): Promise<void> {
  const listed = await dialer.list();
  if (listed.length !== size || listed.some((r) => typeof r.data.title !== 'string')) throw new Error(`${RATE}: ${listed.length} records listed at the bootstrap, not ${size}`);
}

/** One bootstrap: its time, the time until every merge op was signed, and the dialer's heap growth scaled to 100k records. */
interface Boot {
  ms: number;
  signedMs: number;
  mbPer100k: number;
}

/**
 * A fresh dialer bootstrapping from a hub of 100k records (10k quick) over a
 * memory link; the hub is built once and reused. Beside the rate, the heap the
 * dialer holds once it has every record (after a full gc, in MB per 100k).
 */
export function bootstrapSuite(profile: Profile): Suite {
  const size = profile.quick ? 10_000 : 100_000;
  let hub: Storage | undefined;
  let unit: HostUnit | undefined;
  let count = 0;

  const boot = async (): Promise<Boot> => {
    const dialer = await openDialer(`dialer-${++count}`, unit as HostUnit);
    try {
      const before = heapAfterGc();
      let records = 0;
      const start = performance.now();
      const ms = await timed(async () => { records = await bootstrapFrom(dialer); });
      if (records !== size) throw new Error(`${RATE}: the dialer joined ${records} records, not ${size}`);
      await checkListed(dialer, size);
      await dialer.replica.signed();
      // The list's time stays in: it delays the background signing on this thread (a few percent of it at most).
      const signedMs = performance.now() - start;
      const held = heapAfterGc() - before;
      return { ms, signedMs, mbPer100k: (held / 1e6) * (PER / size) };
    } finally {
      await dialer.close();
    }
  };
  const boots = new SharedRuns([RATE, SIGNED, MEMORY], boot);
  const benchmarks: Benchmark[] = [
    { name: RATE, unit: 'ops/s', baseline: PARSE_BASELINE, ops: size, run: async () => (await boots.take(RATE)).ms },
    { name: SIGNED, unit: 'ops/s', baseline: PARSE_BASELINE, ops: size, run: async () => (await boots.take(SIGNED)).signedMs },
    { name: MEMORY, unit: 'MB', baseline: null, ops: size, run: async () => (await boots.take(MEMORY)).mbPer100k },
  ];
  return {
    benchmarks,
    async setup() {
      const h = await openNode('hub');
      hub = h;
      unit = h.sync.unit({ access: 'public', pageSize: PAGE_SIZE });
      const ms = await timed(async () => {
        for (let i = 0; i < size; i += BATCH) {
          await Promise.all(Array.from({ length: Math.min(BATCH, size - i) }, (_, k) => h.insert(makeRecord(i + k))));
        }
      });
      process.stderr.write(`  built the bootstrap hub: ${size} records in ${(ms / 1000).toFixed(1)} s\n`);
    },
    async teardown() {
      await hub?.close();
      hub = undefined;
      unit = undefined;
    },
  };
}

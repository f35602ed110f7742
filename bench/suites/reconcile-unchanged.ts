import { createMemoryLink, open, type HostUnit, type Storage } from '../../libs/syncom/src';
import { bootstrapFrom, memoryBackend, reached } from '../lib/nodes';
import { makeRecord } from '../lib/record';
import type { Profile, Suite } from '../lib/types';

const HUB_URL = 'memory://hub';
/** Inserts in flight while the hub is filled. */
const BATCH = 1_000;
const sizeName = (n: number) => `${n / 1000}k`;
/** Records updated at the hub before each after-writes run. */
const WRITES = 100;

const UNCHANGED = 'reconcile/unchanged';

/** CPU milliseconds of the whole process (every thread) spent in `fn`. */
async function cpuMs(fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await fn();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
}

/**
 * Anti-entropy over an unchanged store: a hub of n records (100k; 20k with
 * --quick) and a dialer bootstrapped from it, both on memory backends with
 * signatures off; per run one `forceSync()` (the dialer reconciles every
 * label with the hub), which must find nothing. The figure is CPU ms of the
 * process, every thread: the dialer's and the hub's side together (one
 * process, memory link), so an upper bound of the dialer's. Both read their
 * sets from the digest index kept at commit time; the index is built at the
 * first reconciliation (one digest per record, once), timed in setup and
 * given as `first-run-cpu` (one run, no warm-up). `after-writes-cpu`: the
 * same after 100 records were updated at the hub and reached the dialer by
 * its feed (so nothing differs either): each side digests those 100 again.
 */
export function reconcileUnchangedSuite(profile: Profile): Suite {
  const size = profile.quick ? 20_000 : 100_000;
  const at = `${UNCHANGED}/${sizeName(size)}`;
  const names = { cpu: `${at}/dialer-cpu`, first: `${at}/first-run-cpu`, writes: `${at}/after-writes-cpu` };
  let hub: Storage | undefined;
  let dialer: Storage | undefined;
  let first = 0;
  let ids: string[] = [];
  let turn = 0;
  const once = async () => {
    const d = dialer as Storage;
    const heads = [d.replica.committedHead, hub?.replica.committedHead];
    const ms = await cpuMs(() => d.sync.forceSync());
    if (d.replica.committedHead !== heads[0] || hub?.replica.committedHead !== heads[1]) throw new Error(`${UNCHANGED}: a reconciliation of equal stores logged ops`);
    return ms;
  };
  return {
    benchmarks: [
      { name: names.cpu, unit: 'ms', baseline: null, ops: size, run: once },
      { name: names.first, unit: 'ms', baseline: null, ops: size, runs: 1, warmup: false, run: async () => first },
      {
        name: names.writes, unit: 'ms', baseline: null, ops: WRITES,
        run: async () => {
          const [h, d] = [hub as Storage, dialer as Storage];
          turn++;
          await Promise.all(ids.slice(0, WRITES).map((id) => h.update(id, { n: -turn })));
          const target = h.replica.committedVector[h.id];
          await reached(d, () => (d.replica.committedVector[h.id] ?? 0) >= target, `${UNCHANGED}: the dialer applied the writes`);
          await Promise.all([h.replica.idle(), d.replica.idle()]);
          return once();
        },
      },
    ],
    async setup() {
      const h = await open({ path: 'unchanged-hub', backend: memoryBackend(), sync: { signatures: false } });
      hub = h;
      const unit: HostUnit = h.sync.unit({ access: 'public' });
      for (let i = 0; i < size; i += BATCH) ids.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, size - i) }, (_, k) => h.insert(makeRecord(i + k))))));
      const d = await open({ path: 'unchanged-dialer', backend: memoryBackend(), sync: { signatures: false, antiEntropyInterval: 0, connect: () => createMemoryLink(unit) } });
      dialer = d;
      const records = await bootstrapFrom(d, HUB_URL);
      if (records !== size) throw new Error(`${UNCHANGED}: the bootstrap carried ${records} records, not ${size}`);
      await reached(d, () => d.sync.peers()[0]?.subscribed === true, `${UNCHANGED}: the dialer subscribed`);
      await Promise.all([h.replica.idle(), d.replica.idle()]);
      first = await once();
      process.stderr.write(`  ${at}: the first reconciliation (both digest indexes built) took ${first.toFixed(0)} ms of CPU\n`);
    },
    async teardown() {
      await dialer?.close();
      await hub?.close();
      dialer = undefined;
      hub = undefined;
      ids = [];
    },
  };
}

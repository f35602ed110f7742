import { open } from '../../libs/syncom/src';
import type { Storage } from '../../libs/syncom/src';
import { inFlight, timed } from '../lib/measure';
import { makeRecord, randomIndexes } from '../lib/record';
import { removeTemp, tempPath } from '../lib/temp';
import type { Benchmark, Profile, Suite } from '../lib/types';
import { CLONE_BASELINE, READ_STORE_SIZE } from './baselines';

/** get() of random ids on one store of 100k records, built once (100 inserts in flight, durable off). */
export function readsSuite(profile: Profile): Suite {
  const ops = profile.quick ? 50_000 : 200_000;
  const picks = randomIndexes(ops, READ_STORE_SIZE, 11);
  let path = '';
  let storage: Storage | undefined;
  let ids: string[] = [];
  const get: Benchmark = {
    name: `get/${READ_STORE_SIZE / 1000}k/random`, unit: 'ops/s', baseline: CLONE_BASELINE, ops,
    run: () => {
      const s = storage as Storage;
      return timed(async () => {
        for (let i = 0; i < ops; i++) {
          if ((await s.get(ids[picks[i]])) === undefined) throw new Error(`get: record ${ids[picks[i]]} is missing`);
        }
      });
    },
  };
  return {
    benchmarks: [get],
    async setup() {
      path = tempPath('reads');
      storage = await open({ path, durable: false });
      const s = storage;
      ids = new Array<string>(READ_STORE_SIZE);
      const ms = await timed(() => inFlight(READ_STORE_SIZE, 100, async (i) => { ids[i] = await s.insert(makeRecord(i)); }));
      process.stderr.write(`  built the reads store: ${READ_STORE_SIZE} records in ${(ms / 1000).toFixed(1)} s\n`);
    },
    async teardown() {
      await storage?.close();
      if (path) removeTemp(path);
      // A closed store still holds its records until dropped: the suites after this one run in the same process.
      storage = undefined;
      ids = [];
    },
  };
}

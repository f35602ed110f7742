import { open } from '../../libs/syncom/src';
import type { Storage } from '../../libs/syncom/src';
import { inFlight, oneByOne, timed } from '../lib/measure';
import { makeRecord } from '../lib/record';
import { removeTemp, tempPath } from '../lib/temp';
import type { Benchmark, Profile, Suite } from '../lib/types';
import { awaitedLatencyBenches } from './awaited-latency';
import { SIGN_BASELINE } from './baselines';

/** Records update/inc/add cycle over, inserted (untimed) before each run. */
const TARGETS = 100;
const WINDOW = 100;

type WriteOp = (s: Storage, ids: readonly string[], i: number) => Promise<unknown>;

const WRITES: Record<string, WriteOp> = {
  insert: (s, _ids, i) => s.insert(makeRecord(i)),
  update: (s, ids, i) => s.update(ids[i % ids.length], { title: `note ${i}` }),
  inc: (s, ids, i) => s.inc(ids[i % ids.length], 'views', 1),
  // A few distinct elements: each add still makes a new tag (OR-set), but sets stay small.
  add: (s, ids, i) => s.add(ids[i % ids.length], 'tags', [`tag${i % 8}`]),
};

interface WriteCase {
  write: string;
  concurrent: boolean;
  durable: boolean;
  ops: number;
}

/**
 * Ops per run. Awaited durable writes pay an fsync each, so they run fewer; a
 * 100-in-flight run shares its fsyncs (group commit) and keeps the same count
 * with durable on and off, so those two figures compare directly.
 */
function opsFor(profile: Profile, concurrent: boolean, durable: boolean): number {
  if (concurrent) return profile.quick ? 1_000 : 5_000;
  // A durable awaited write waits on its fdatasync (about 0.4-2 ms here), not on the CPU.
  if (durable) return profile.quick ? 100 : 200;
  return profile.quick ? 200 : 2_000;
}

/** One run: a fresh storage, TARGETS records to write to, the timed writes, close, remove. */
async function runWrites(c: WriteCase): Promise<number> {
  const path = tempPath(`${c.write}-${c.durable ? 'durable' : 'volatile'}`);
  const storage = await open({ path, durable: c.durable });
  try {
    const ids = c.write === 'insert' ? [] : await Promise.all(Array.from({ length: TARGETS }, (_, i) => storage.insert(makeRecord(i))));
    const op = WRITES[c.write];
    return await timed(() => (c.concurrent
      ? inFlight(c.ops, WINDOW, (i) => op(storage, ids, i))
      : oneByOne(c.ops, (i) => op(storage, ids, i))));
  } finally {
    await storage.close();
    removeTemp(path);
  }
}

function writeBench(c: WriteCase): Benchmark {
  const mode = c.concurrent ? `${WINDOW}-in-flight` : 'awaited';
  return {
    name: `${c.write}/${mode}/durable=${c.durable}`, unit: 'ops/s', baseline: SIGN_BASELINE, ops: c.ops,
    run: () => runWrites(c),
  };
}

/**
 * insert, update, inc, add on a fresh fs storage: awaited one by one and 100
 * in flight, durable off and on; beside them, the awaited inserts' latency
 * (local/awaited/insert/…: p50, p99, and the log append inside a write).
 */
export function localWritesSuite(profile: Profile): Suite {
  const benchmarks: Benchmark[] = [];
  for (const durable of [false, true]) {
    for (const write of Object.keys(WRITES)) {
      for (const concurrent of [false, true]) {
        benchmarks.push(writeBench({ write, concurrent, durable, ops: opsFor(profile, concurrent, durable) }));
      }
    }
  }
  benchmarks.push(...awaitedLatencyBenches(profile));
  return { benchmarks };
}

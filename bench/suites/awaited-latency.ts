import { open } from '../../libs/syncom/src';
import { internals } from '../../libs/syncom/src/testing';
import { quantile, SharedRuns } from '../lib/measure';
import { makeRecord } from '../lib/record';
import { removeTemp, tempPath } from '../lib/temp';
import type { Benchmark, Profile } from '../lib/types';
import { SIGN_BASELINE } from './baselines';

/** One run of awaited inserts: the rate, the latency percentiles, and the part of each write spent in its log append. */
interface Awaited {
  ms: number;
  p50: number;
  p99: number;
  appendP50: number;
}

/** Records the awaited updates cycle over, inserted (untimed) first. */
const TARGETS = 100;

/**
 * Writes awaited one at a time on a fresh fs storage (what a REST handler
 * does), each timed, and the log append inside each. By default (the spec's
 * layout) each append creates a batch file of its own; with `lines`
 * (open({ sync: { log: { lines: true } } })) it is a line added to the open
 * log file the backend keeps open: without durable, one write on the main
 * thread, a few per event-loop turn; with durable, the write and an fdatasync
 * on the pool; a file is created once per rollAfter batches.
 * A lone op is signed on the main thread too. What is
 * left is the op's build (digest, stamp), the chain block, the record's apply
 * and the promise hops; the record files are written after the append, off
 * the write's path.
 */
async function awaitedRun(write: 'insert' | 'update', durable: boolean, lines: boolean, ops: number): Promise<Awaited> {
  const path = tempPath(`awaited-${write}-${durable ? 'durable' : 'volatile'}`);
  const storage = await open({ path, durable, sync: { log: { lines } } });
  try {
    const ids = write === 'update' ? await Promise.all(Array.from({ length: TARGETS }, (_, i) => storage.insert(makeRecord(i)))) : [];
    const one = (i: number) => (write === 'update' ? storage.update(ids[i % TARGETS], { title: `note ${i}` }) : storage.insert(makeRecord(i)));
    const log = internals(storage).log;
    const append = log.append.bind(log);
    const appends: number[] = [];
    log.append = async (items) => {
      const t = performance.now();
      try { return await append(items); } finally { appends.push(performance.now() - t); }
    };
    const lat: number[] = [];
    const start = performance.now();
    for (let i = 0; i < ops; i++) {
      const t = performance.now();
      await one(i);
      lat.push(performance.now() - t);
    }
    const ms = performance.now() - start;
    return { ms, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99), appendP50: quantile(appends, 0.5) };
  } finally {
    await storage.close();
    removeTemp(path);
  }
}

/**
 * local/awaited/{insert,update}/durable=…: ops/s against the sign-only rate,
 * latency p50 and p99 in ms, and the p50 of the log append inside a write,
 * from the same runs; local/awaited-lines/… the same with log.lines.
 */
export function awaitedLatencyBenches(profile: Profile): Benchmark[] {
  const out: Benchmark[] = [];
  for (const lines of [false, true]) for (const write of ['insert', 'update'] as const) {
    for (const durable of [false, true]) {
      const ops = durable ? (profile.quick ? 100 : 300) : profile.quick ? 300 : 2_000;
      const base = `local/awaited${lines ? '-lines' : ''}/${write}/durable=${durable}`;
      const names = [base, `${base}/p50`, `${base}/p99`, `${base}/append-p50`];
      const runs = new SharedRuns(names, () => awaitedRun(write, durable, lines, ops));
      out.push(
        { name: base, unit: 'ops/s', baseline: SIGN_BASELINE, ops, run: async () => (await runs.take(base)).ms },
        { name: names[1], unit: 'ms', baseline: null, ops, run: async () => (await runs.take(names[1])).p50 },
        { name: names[2], unit: 'ms', baseline: null, ops, run: async () => (await runs.take(names[2])).p99 },
        { name: names[3], unit: 'ms', baseline: names[1], ops, run: async () => (await runs.take(names[3])).appendP50 },
      );
    }
  }
  return out;
}

import type { Storage } from '../../libs/syncom/src';
import { inFlight, quantile, SharedRuns, timed } from '../lib/measure';
import { bootstrapFrom, openDialer, openNode, reached } from '../lib/nodes';
import { makeRecord } from '../lib/record';
import type { Benchmark, Profile, Suite } from '../lib/types';
import { figureOf } from '../lib/figures';
import { SIGN_BASELINE, VERIFY_BASELINE } from './baselines';

const WINDOW = 100;
/** The memory-link rate, the baseline of the socket.io rate (suites/socketio.ts). */
export const MEMORY_REPLICATION = 'replication/memory/verify';
/** The memory-link rate again, against the bound of its own work (BOUND) rather than the verify-only rate. */
const OF_BOUND = 'replication/memory/of-bound';
/** 1 / (1/sign + 2/verify) from this invocation's baselines: one signing at A and two checks (hub, B) per op. */
export const BOUND = 'replication/bound';
const P50 = 'replication/memory/latency-p50';
const P99 = 'replication/memory/latency-p99';

/** A hub and two dialers, A and B, each on its own memory link to the hub's public unit. */
interface Line {
  hub: Storage;
  a: Storage;
  b: Storage;
}

/**
 * A fresh line, untimed: A and B have registered the hub and taken its (empty)
 * bootstrap, so B's changes feed is live. Signatures: the default 'verify' on
 * all three, so the hub checks A's pushes and B checks the hub's pages.
 */
async function openLine(): Promise<Line> {
  const hub = await openNode('hub');
  const unit = hub.sync.unit({ access: 'public' });
  const a = await openDialer('a', unit);
  const b = await openDialer('b', unit);
  await Promise.all([bootstrapFrom(a), bootstrapFrom(b)]);
  // The bootstraps' commits settle first, so timing starts on a quiet line.
  await Promise.all([hub, a, b].map((s) => s.replica.idle()));
  return { hub, a, b };
}

async function closeLine(line: Line): Promise<void> {
  for (const s of [line.a, line.b, line.hub]) await s.close();
}

/** How many of A's ops B has applied: its committed vector at A's stream. */
const appliedAtB = ({ a, b }: Line) => b.replica.committedVector[a.id] ?? 0;

/** One run: A inserts `ops` records, 100 in flight; timed from the first insert until B has applied the last. */
async function runThroughput(ops: number): Promise<number> {
  const line = await openLine();
  try {
    const base = appliedAtB(line);
    return await timed(async () => {
      const all = reached(line.b, () => appliedAtB(line) >= base + ops, `B applies ${ops} ops of A`);
      await inFlight(ops, WINDOW, (i) => line.a.insert(makeRecord(i)));
      await all;
    });
  } finally {
    await closeLine(line);
  }
}

/** One run: `samples` single inserts at A, each timed until B has applied it; the latencies in ms. */
async function runLatency(samples: number): Promise<number[]> {
  const line = await openLine();
  try {
    const ms: number[] = [];
    for (let i = 0; i < samples; i++) {
      const target = appliedAtB(line) + 1;
      ms.push(await timed(async () => {
        const there = reached(line.b, () => appliedAtB(line) >= target, `B applies insert ${i} of A`);
        await line.a.insert(makeRecord(i));
        await there;
      }));
    }
    return ms;
  } finally {
    await closeLine(line);
  }
}

/**
 * The rate the memory line could reach if its process did nothing but its
 * crypto: every op is signed once (A) and checked twice (hub, B), all on the
 * same two cores, so 1 / (1/sign + 2/verify) from the same invocation's
 * baselines. Its ratio is against the verify-only rate; a computed figure,
 * each run gives the same value.
 */
function boundBench(): Benchmark {
  const bound = () => 1 / (1 / figureOf(SIGN_BASELINE) + 2 / figureOf(VERIFY_BASELINE));
  return { name: BOUND, unit: 'ops/s', baseline: VERIFY_BASELINE, needs: [SIGN_BASELINE], ops: 1, bracket: 'computed', run: async () => 1000 / bound() };
}

/**
 * Replication A -> hub -> B over memory links with signatures verified: the
 * rate of 100-in-flight inserts, and the p50 and p99 of one insert's trip.
 */
export function replicationSuite(profile: Profile): Suite {
  const ops = profile.quick ? 2_000 : 20_000;
  const samples = profile.quick ? 50 : 200;
  const latency = new SharedRuns([P50, P99], () => runLatency(samples));
  const rates = new SharedRuns([MEMORY_REPLICATION, OF_BOUND], () => runThroughput(ops));
  const percentile = (name: string, q: number): Benchmark => ({
    name, unit: 'ms', baseline: null, ops: samples,
    run: async () => quantile(await latency.take(name), q),
  });
  return {
    benchmarks: [
      { name: MEMORY_REPLICATION, unit: 'ops/s', baseline: VERIFY_BASELINE, ops, run: () => rates.take(MEMORY_REPLICATION) },
      boundBench(),
      { name: OF_BOUND, unit: 'ops/s', baseline: BOUND, ops, run: () => rates.take(OF_BOUND) },
      percentile(P50, 0.5),
      percentile(P99, 0.99),
    ],
  };
}

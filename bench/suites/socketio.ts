import { quantile, SharedRuns } from '../lib/measure';
import { BenchChild } from '../lib/processes';
import { removeTemp, tempPath } from '../lib/temp';
import type { Benchmark, Profile, Suite } from '../lib/types';
import { VERIFY_BASELINE, VERIFY_CPU_BASELINE } from './baselines';
import { MEMORY_REPLICATION } from './replication';

const WINDOW = 100;
const TOKEN = 'bench-token';
const THROUGHPUT = 'replication/socketio/throughput';
const P50 = 'replication/socketio/latency-p50';
const P99 = 'replication/socketio/latency-p99';
const INGEST = 'hub/socketio/ingest';
const INGEST_CPU = 'hub/socketio/ingest/cpu';
const INGEST_MAIN = 'hub/socketio/ingest/cpu-main';
/** Four peers, each in its own process, pushing their backlogs to one hub at once. */
const INGEST_4 = 'hub/socketio/ingest/4-peers';
const INGEST_4_CPU = 'hub/socketio/ingest/cpu/4-peers';
const INGEST_4_MAIN = 'hub/socketio/ingest/cpu-main/4-peers';
/** Peers of the four-peer ingest besides A. */
const EXTRA_PEERS = 3;

/** One ingest run: its time, and the CPU per op of the hub (every thread, then its main thread) and of the pushing peer A. */
interface IngestRun {
  ms: number;
  hubCpu: number;
  hubMain: number;
  peerCpu: number;
}

/** The three processes: the hub (apps/hub), A the writer, B the watcher. */
interface Processes {
  hub: BenchChild;
  a: BenchChild;
  b: BenchChild;
  /** The other peers of the four-peer ingest, forked only when it is selected. */
  more: BenchChild[];
}

/** One run's fresh line: the hub's storage directory, A's id, and how many ops A has written on it. */
interface Line {
  path: string;
  aId: string;
  sent: number;
}

/** Forks the three children; if one fails to start, the others are stopped before the error goes on. */
async function startProcesses(): Promise<Processes> {
  const labels = ['hub', 'a', 'b'] as const;
  const files = { hub: 'bench/children/hub-process.ts', a: 'bench/children/node-process.ts', b: 'bench/children/node-process.ts' };
  // BENCH_HUB_ARGS: node flags for the hub child alone (`--cpu-prof --cpu-prof-dir=/tmp/prof` profiles the hub, not the peers).
  const hubArgs = (process.env.BENCH_HUB_ARGS ?? '').split(' ').filter(Boolean);
  const started = await Promise.allSettled(labels.map((l) => BenchChild.spawn(l, files[l], undefined, l === 'hub' ? hubArgs : [])));
  const failed = started.find((s) => s.status === 'rejected');
  const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (failed) {
    await Promise.all(children.map((c) => c.stop()));
    throw failed.reason;
  }
  const [hub, a, b] = children;
  return { hub, a, b, more: [] };
}

/**
 * `count` inserts at A (`window` in flight), timed on the shared monotonic
 * clock from A's first insert until B has applied the last and A's last
 * insert resolved. B is armed before A starts, so its stamp is taken at the
 * 'change' event that reached the target.
 */
async function trip(p: Processes, line: Line, count: number, window: number): Promise<number> {
  const target = line.sent + count;
  await p.b.request('arm', { stream: line.aId, target });
  const ins = await p.a.request<{ startedAt: number; endedAt: number }>('insert', { count, window });
  line.sent = target;
  const { reachedAt } = await p.b.request<{ reachedAt: number }>('reached');
  if (reachedAt < ins.startedAt) throw new Error(`B reached ${target} before A started: the clocks disagree`);
  return Math.max(reachedAt, ins.endedAt) - ins.startedAt;
}

/**
 * A fresh line for one run, untimed: a new hub app on a new directory, fresh
 * A and B that registered it (with the hub's token) and took its empty
 * bootstrap, then one insert carried A -> hub -> B so the whole path is live.
 * Closed after `fn`, also when it fails.
 */
async function withLine<T>(p: Processes, fn: (line: Line) => Promise<T>): Promise<T> {
  const path = tempPath('socketio-hub');
  try {
    const { port } = await p.hub.request<{ port: number }>('start', { path, token: TOKEN });
    const url = `http://127.0.0.1:${port}/syncom`;
    const open = (child: BenchChild, label: string) => child.request<{ id: string }>('open', { label, url, token: TOKEN });
    const [{ id }] = await Promise.all([open(p.a, 'a'), open(p.b, 'b')]);
    const line: Line = { path, aId: id, sent: 0 };
    await trip(p, line, 1, 1);
    return await fn(line);
  } finally {
    await Promise.allSettled([p.a.request('close'), p.b.request('close')]);
    await p.hub.request('stop').catch(() => undefined);
    removeTemp(path);
  }
}

/**
 * Hub ingest from one peer: A writes `count` records with no hub registered
 * (untimed), then registers a fresh hub; timed from that call until the hub
 * has applied all of them: A's pushes over socket.io, the hub verifying each
 * signature, logging the ops and writing the records. The CPU both processes
 * spent meanwhile is counted too (the hub's from the arm before A registers).
 */
async function ingest(p: Processes, count: number): Promise<IngestRun> {
  const path = tempPath('socketio-ingest');
  try {
    const { port } = await p.hub.request<{ port: number }>('start', { path, token: TOKEN });
    const { id } = await p.a.request<{ id: string }>('open', { label: 'a' });
    await p.a.request('insert', { count, window: WINDOW });
    await p.hub.request('arm', { stream: id, target: count });
    const before = await p.a.request<{ us: number }>('cpu');
    const { startedAt } = await p.a.request<{ startedAt: number }>('register', { url: `http://127.0.0.1:${port}/syncom`, token: TOKEN });
    const hub = await p.hub.request<{ reachedAt: number; cpuUs: number; mainUs?: number }>('reached');
    const after = await p.a.request<{ us: number }>('cpu');
    return { ms: hub.reachedAt - startedAt, hubCpu: hub.cpuUs / count, hubMain: (hub.mainUs ?? NaN) / count, peerCpu: (after.us - before.us) / count };
  } finally {
    await p.a.request('close').catch(() => undefined);
    await p.hub.request('stop').catch(() => undefined);
    removeTemp(path);
  }
}

/**
 * Hub ingest from four peers at once: A and the three others each write
 * `count` records unregistered (untimed), then all register the same fresh
 * hub together; timed from the first register call until the hub has
 * applied every peer's backlog. Each peer is its own process, so the
 * pushing side is four event loops, as four devices would be.
 */
async function ingestMany(p: Processes, count: number): Promise<IngestRun> {
  const peers = [p.a, ...p.more];
  const path = tempPath('socketio-ingest-4');
  try {
    const { port } = await p.hub.request<{ port: number }>('start', { path, token: TOKEN });
    // Each peer writes and subscribes to a scope of its own, so the hub feeds none of them another's ops: ingest alone.
    const ids = await Promise.all(peers.map((c, i) => c.request<{ id: string }>('open', { label: `p${i}`, scope: `p${i}` })));
    await Promise.all(peers.map((c) => c.request('insert', { count, window: WINDOW })));
    await p.hub.request('armAll', { streams: ids.map((x) => x.id), target: count });
    const cpu = () => Promise.all(peers.map((c) => c.request<{ us: number }>('cpu')));
    const before = await cpu();
    const url = `http://127.0.0.1:${port}/syncom`;
    const starts = await Promise.all(peers.map((c) => c.request<{ startedAt: number }>('register', { url, token: TOKEN })));
    const hub = await p.hub.request<{ reachedAt: number; cpuUs: number; mainUs?: number }>('reached');
    const after = await cpu();
    const ops = count * peers.length;
    const peerUs = after.reduce((sum, x, i) => sum + x.us - before[i].us, 0);
    return { ms: hub.reachedAt - Math.min(...starts.map((x) => x.startedAt)), hubCpu: hub.cpuUs / ops, hubMain: (hub.mainUs ?? NaN) / ops, peerCpu: peerUs / ops };
  } finally {
    await Promise.allSettled(peers.map((c) => c.request('close')));
    await p.hub.request('stop').catch(() => undefined);
    removeTemp(path);
  }
}

/**
 * Replication A -> hub -> B over socket.io on loopback, each in its own
 * process, with signatures verified: the rate of 100-in-flight inserts
 * against the memory-link figure of the same invocation, and the p50 and p99
 * of one insert's trip.
 */
export function socketIoSuite(profile: Profile): Suite {
  const ops = profile.quick ? 2_000 : 20_000;
  const samples = profile.quick ? 50 : 200;
  let procs: Processes | undefined;
  const running = (): Processes => {
    if (!procs) throw new Error('the socket.io suite was not set up');
    return procs;
  };
  const latency = new SharedRuns([P50, P99], () => withLine(running(), async (line) => {
    const ms: number[] = [];
    for (let i = 0; i < samples; i++) ms.push(await trip(running(), line, 1, 1));
    return ms;
  }));
  const ingestRuns = new SharedRuns([INGEST, INGEST_CPU, INGEST_MAIN], () => ingest(running(), ops));
  const manyRuns = new SharedRuns([INGEST_4, INGEST_4_CPU, INGEST_4_MAIN], () => ingestMany(running(), ops));
  const percentile = (name: string, q: number): Benchmark => ({
    name, unit: 'ms', baseline: null, ops: samples,
    run: async () => quantile(await latency.take(name), q),
  });
  return {
    benchmarks: [
      { name: THROUGHPUT, unit: 'ops/s', baseline: MEMORY_REPLICATION, ops, run: () => withLine(running(), (line) => trip(running(), line, ops, WINDOW)) },
      percentile(P50, 0.5),
      percentile(P99, 0.99),
      { name: INGEST, unit: 'ops/s', baseline: VERIFY_BASELINE, ops, run: async () => (await ingestRuns.take(INGEST)).ms },
      // What bounds the rate above: CPU per op against the verify-only runs' (bench/README.md, "Hub ingest's CPU").
      { name: INGEST_CPU, unit: 'µs/op', baseline: VERIFY_CPU_BASELINE, ops, run: async () => { const r = await ingestRuns.take(INGEST_CPU); return r.hubCpu + r.peerCpu; } },
      { name: INGEST_MAIN, unit: 'µs/op', baseline: VERIFY_CPU_BASELINE, ops, run: async () => (await ingestRuns.take(INGEST_MAIN)).hubMain },
      // Four peers write `ops` each: the rate counts all 4 x ops.
      { name: INGEST_4, unit: 'ops/s', baseline: VERIFY_BASELINE, ops: 4 * ops, run: async () => (await manyRuns.take(INGEST_4)).ms },
      { name: INGEST_4_CPU, unit: 'µs/op', baseline: VERIFY_CPU_BASELINE, ops: 4 * ops, run: async () => { const r = await manyRuns.take(INGEST_4_CPU); return r.hubCpu + r.peerCpu; } },
      { name: INGEST_4_MAIN, unit: 'µs/op', baseline: VERIFY_CPU_BASELINE, ops: 4 * ops, run: async () => (await manyRuns.take(INGEST_4_MAIN)).hubMain },
    ],
    async setup(selected) {
      procs = await startProcesses();
      if ([INGEST_4, INGEST_4_CPU, INGEST_4_MAIN].some((n) => selected.has(n))) {
        const spawned = await Promise.allSettled(Array.from({ length: EXTRA_PEERS }, (_, i) => BenchChild.spawn(`p${i + 1}`, 'bench/children/node-process.ts')));
        procs.more = spawned.flatMap((x) => (x.status === 'fulfilled' ? [x.value] : []));
        const failed = spawned.find((x) => x.status === 'rejected');
        if (failed) throw failed.reason;
      }
    },
    async teardown() {
      const p = procs;
      procs = undefined;
      if (p) await Promise.all([p.hub, p.a, p.b, ...p.more].map((c) => c.stop()));
    },
  };
}

import { SharedRuns } from '../lib/measure';
import { BenchTimeout } from '../lib/timeout';
import type { Benchmark, Profile, Suite } from '../lib/types';
import { PeerLine, type Trip } from '../peers/line';
import { FIELDS } from '../peers/protocol';
import { PEERS, type PeerSystem, SYNCOM_FALSE, SYNCOM_VERIFY } from '../peers/systems';

/** Changes per run: 1k, 10k and 100k in a full run; --quick runs 1k only (see bench/README.md). */
const FULL = [1_000, 10_000, 100_000];
const QUICK = [1_000];
/**
 * The warm-up writes this many changes, in runs of min(N, WARM_UP), or stops
 * after WARM_MS (a slow system's first runs take seconds): it warms the
 * processes, its figures are dropped. One run of N = 1k left the code
 * half-cold, and 7 timed runs of a few milliseconds each moved with it: the
 * same workload gave Yjs 77,000 to 93,000 field writes a second batched after
 * one warm-up run of 1,000, and 218,000 to 276,000 as the median of 41 runs
 * (docs/benchmarks.md, "Warm-up at small N").
 */
const WARM_UP = 10_000;
const WARM_MS = 3_000;
/** Timed runs at 100k: the minimum the bench promises, as one run there takes minutes. */
const RUNS_AT_100K = 5;
/**
 * Timed runs at 1k in a full run: a run there takes 4 to 30 ms, and seven of
 * them gave the batched ratio to Yjs anywhere from 0.6 to 1.0 in back-to-back
 * invocations (docs/benchmarks.md, "Warm-up at small N").
 */
const RUNS_AT_1K = 25;

/** A run is cut off past max(30 s, N / 500 changes/s): slower than 500 changes/s is reported as a timeout. */
export const capMs = (n: number): number => Math.max(30_000, n * 2);

/** `1k`, `10k`, `100k`: N in a figure's name. */
export const nLabel = (n: number): string => (n % 1000 === 0 ? `${n / 1000}k` : String(n));

/** The name of system `system`'s figure `what` (throughput, bytes, throughput-vs-tinybase, ...) at N. */
export const peerFigure = (system: string, n: number, what: string): string => `peers/${system}/n=${nLabel(n)}/${what}`;

/**
 * The runs of one group of systems sharing a directory's processes (syncom's
 * two signature modes; each peer alone): forked at the suite's setup, forked
 * anew after a timeout (a cut-off run may leave them busy), stopped at teardown.
 */
class Group {
  private line: PeerLine | undefined;
  /** Per system, the smallest N that timed out: larger ones are not run. */
  private readonly failedAt = new Map<string, number>();

  constructor(private readonly spawnWith: PeerSystem) {}

  async trip(system: PeerSystem, n: number, count: number, batched = false): Promise<Trip> {
    const key = `${system.name}${batched ? '/batched' : ''}`;
    const failed = this.failedAt.get(key);
    if (failed !== undefined && n >= failed) throw new BenchTimeout(capMs(n), `${key}: not run, it timed out at n=${nLabel(failed)}`);
    this.line ??= await PeerLine.spawn(this.spawnWith);
    try {
      return await this.line.run(system, count, capMs(n), batched);
    } catch (e) {
      if (e instanceof BenchTimeout) this.failedAt.set(key, n);
      await this.stop();
      throw e;
    }
  }

  async start(): Promise<void> {
    this.line ??= await PeerLine.spawn(this.spawnWith);
  }

  async stop(): Promise<void> {
    const line = this.line;
    this.line = undefined;
    await line?.stop();
  }
}

/** The warm-up's runs of `size` changes (see WARM_UP); the last one's trip, which the measure drops. */
async function warmUp(trip: (writes: number) => Promise<Trip>, size: number): Promise<Trip> {
  const start = performance.now();
  let last = await trip(size);
  for (let written = size; written < WARM_UP && performance.now() - start < WARM_MS; written += size) last = await trip(size);
  return last;
}

type What = 'throughput' | 'bytes' | 'cpu';

/** A figure read from a system's shared runs: its rate (ms per run), its bytes, or the CPU of its three processes per change. */
function figure(name: string, baseline: string | null, n: number, runs: number, shared: SharedRuns<Trip>, what: What): Benchmark {
  if (what === 'throughput') return { name, unit: 'ops/s', baseline, ops: n, runs, run: async () => (await shared.take(name)).ms };
  if (what === 'bytes') return { name, unit: 'bytes', baseline, ops: n, runs, run: async () => (await shared.take(name)).bytes };
  return { name, unit: 'µs/op', baseline, ops: n, runs, run: async () => (await shared.take(name)).cpuUs / n };
}

/**
 * One system's figures at N: throughput, bytes and the CPU of its three
 * processes per change, and for syncom one `-vs-<peer>` figure of each per
 * peer (syncom's value, the peer's as baseline, so the ratio is syncom /
 * peer). All read the same runs: the first of them (the warm-up) writes
 * WARM_UP changes, the others N.
 */
function systemFigures(group: Group, system: PeerSystem, n: number, profile: Profile, batched = false): Benchmark[] {
  const isSyncom = system === SYNCOM_VERIFY || system === SYNCOM_FALSE;
  const versus = isSyncom ? PEERS.map((p) => p.name) : [];
  const prefix = batched ? 'batched/' : '';
  const whats = ['throughput', 'bytes', 'cpu', ...versus.flatMap((p) => [`throughput-vs-${p}`, `bytes-vs-${p}`, `cpu-vs-${p}`])].map((w) => prefix + w);
  const names = whats.map((w) => peerFigure(system.name, n, w));
  let warmed = false;
  // The batched workload's N counts field writes: N / FIELDS records of FIELDS fields each.
  const records = (writes: number) => (batched ? writes / FIELDS : writes);
  const trip = (writes: number) => group.trip(system, n, records(writes), batched);
  const shared = new SharedRuns<Trip>(names, async () => {
    if (warmed) return trip(n);
    warmed = true;
    return warmUp(trip, Math.min(n, WARM_UP));
  });
  const runs = n >= 100_000 ? RUNS_AT_100K : n <= 1_000 && !profile.quick ? RUNS_AT_1K : profile.runs;
  const own = (what: What) => (system === SYNCOM_FALSE ? peerFigure(SYNCOM_VERIFY.name, n, prefix + what) : null);
  return whats.map((w, i) => {
    const what = (['throughput', 'bytes', 'cpu'] as const).find((x) => w.startsWith(prefix + x)) as What;
    const peer = w.split('-vs-')[1];
    return figure(names[i], peer ? peerFigure(peer, n, prefix + what) : own(what), n, runs, shared, what);
  });
}

/**
 * syncom against TinyBase, Yjs and Automerge on one workload (bench/README.md,
 * "Peers"): a writer process makes N record changes, a reader process is
 * caught up through the system's own server process, over WebSockets on
 * loopback. One suite for every group of processes, its figures ordered by
 * workload, then N, then system (syncom's first): each system's figure at an
 * N is taken within a minute of the others', not ten minutes apart, so the
 * ratios compare systems measured on the same machine state. The groups'
 * processes all live for the suite; the ones not running sit idle.
 */
export function peersSuites(profile: Profile): Suite[] {
  const ns = profile.quick ? QUICK : FULL;
  const groups: [PeerSystem, PeerSystem[]][] = [[SYNCOM_VERIFY, [SYNCOM_VERIFY, SYNCOM_FALSE]], ...PEERS.map((p): [PeerSystem, PeerSystem[]] => [p, [p]])];
  const lines = groups.map(([spawnWith, systems]) => ({ group: new Group(spawnWith), systems }));
  return [{
    benchmarks: [false, true].flatMap((batched) => ns.flatMap((n) => lines.flatMap(({ group, systems }) => systems.flatMap((s) => systemFigures(group, s, n, profile, batched))))),
    // Only the groups with a figure selected are forked (a group forks on its first run anyway).
    setup: async (selected) => {
      const names = [...selected];
      for (const { group, systems } of lines) {
        if (systems.some((s) => names.some((name) => name.startsWith(`peers/${s.name}/`)))) await group.start();
      }
    },
    teardown: async () => {
      await Promise.all(lines.map(({ group }) => group.stop()));
    },
  }];
}

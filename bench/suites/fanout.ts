import { SharedRuns } from '../lib/measure';
import { BenchChild } from '../lib/processes';
import { removeTemp, tempPath } from '../lib/temp';
import type { Benchmark, Profile, Suite } from '../lib/types';

const TOKEN = 'bench-token';

/** The hub, and the subscribers' process. */
interface Processes {
  hub: BenchChild;
  subs: BenchChild;
}

/**
 * One run's hub CPU (ms): the feeds' deliveries (their opening taken out),
 * their opening, and the bare broadcast of the same frames to the same sockets.
 */
interface FanoutRun {
  feedMs: number;
  openMs: number;
  bareMs: number;
}

const name = (n: number, what: string) => `hub/fanout/${n}/${what}`;

/** Runs of each subscriber count before any is counted (the bench's own warm-up run comes after them). */
const WARM_RUNS = 4;

/**
 * Hub fan-out: the real apps/hub holding `ops` records it wrote itself;
 * `n` raw socket.io subscribers (one child process) each open a changes
 * feed from the log's start at once and ack pages as the shipped link does
 * (cumulatively, where the hub offers it), so all of them read the same
 * pages. Counted: the hub process's CPU from before the feeds open until
 * every subscriber took every op and the hub read every ack, less the CPU
 * of opening as many feeds at the log's head just before (nothing to send;
 * then closed): the bare broadcast's sockets are counted from when they are
 * subscribed too.
 * Then the same frames (as subscriber 0 took them, handed to the hub before
 * the count starts) go out bare, one socket.io broadcast per frame to the
 * same sockets, and the hub's CPU for that is counted the same way.
 */
async function fanout(p: Processes, n: number, ops: number): Promise<FanoutRun> {
  const path = tempPath('fanout-hub');
  try {
    const { port } = await p.hub.request<{ port: number }>('start', { path, token: TOKEN, ops });
    await p.subs.request('connect', { url: `http://127.0.0.1:${port}/syncom`, token: TOKEN, n });
    const cpu = async () => (await p.hub.request<{ us: number }>('cpu')).us;
    // Opening the feeds, counted apart: the same feeds opened where the log ends have nothing to send.
    const h0 = await cpu();
    await p.subs.request('openAtHead', { head: ops });
    const h1 = await cpu();
    const { ops: stray } = await p.subs.request<{ ops: number }>('closeAtHead');
    if (stray !== 0) throw new Error(`feeds opened at the head took ${stray} ops`);
    const c0 = await cpu();
    const { over } = await p.subs.request<{ over: number }>('feed', { ops });
    await p.hub.request('acked');
    const c1 = await cpu();
    if (over !== 0) throw new Error(`subscribers took ${over} ops more than were written`);
    const { frames } = await p.subs.request<{ frames: unknown[] }>('frames');
    await p.hub.request('frames', { frames });
    await p.subs.request('armBare', { ops });
    const c2 = await cpu();
    await p.hub.request('bare');
    await p.subs.request('bare');
    const c3 = await cpu();
    const openMs = (h1 - h0) / 1000;
    return { feedMs: (c1 - c0) / 1000 - openMs, openMs, bareMs: (c3 - c2) / 1000 };
  } finally {
    await p.subs.request('close').catch(() => undefined);
    await p.hub.request('stop').catch(() => undefined);
    removeTemp(path);
  }
}

/** The four figures of a subscriber count, reading the same runs (SharedRuns). */
function figures(n: number, ops: number, run: () => Promise<FanoutRun>): Benchmark[] {
  const [cpu, rate, bare, open] = [name(n, 'cpu-per-delivery'), name(n, 'deliveries'), name(n, 'bare-broadcast'), name(n, 'feed-open')];
  const runs = new SharedRuns([cpu, rate, bare, open], run);
  const deliveries = n * ops;
  return [
    { name: cpu, unit: 'µs/op', baseline: null, ops: deliveries, run: async () => ((await runs.take(cpu)).feedMs * 1000) / deliveries },
    // Rates per CPU-second of the hub (the run returns CPU ms): what one core delivers.
    { name: rate, unit: 'ops/s', baseline: bare, ops: deliveries, run: async () => (await runs.take(rate)).feedMs },
    { name: bare, unit: 'ops/s', baseline: null, ops: deliveries, run: async () => (await runs.take(bare)).bareMs },
    { name: open, unit: 'µs/op', baseline: null, ops: n, run: async () => ((await runs.take(open)).openMs * 1000) / n },
  ];
}

/**
 * The hub's CPU per op delivered by its changes feeds at 100 and 1,000
 * subscribers, as deliveries per CPU-second beside a bare socket.io
 * broadcast of the same frames to the same sockets (the transport's own
 * limit), measured in the same run.
 */
export function fanoutSuite(profile: Profile): Suite {
  const ops = profile.quick ? 2_000 : 5_000;
  let procs: Processes | undefined;
  const running = (): Processes => {
    if (!procs) throw new Error('the fan-out suite was not set up');
    return procs;
  };
  // 1,000 subscribers read half as many ops: the same order of deliveries per run, five times as many.
  const opsFor = (n: number) => (n >= 1_000 ? ops / 2 : ops);
  const counts = [100, 1_000];
  return {
    benchmarks: counts.flatMap((n) => figures(n, opsFor(n), () => fanout(running(), n, opsFor(n)))),
    async setup(chosen) {
      const [hub, subs] = await Promise.all([
        BenchChild.spawn('fanout-hub', 'bench/children/fanout-hub-process.ts'),
        BenchChild.spawn('fanout-subs', 'bench/children/fanout-subscribers.ts', 180_000, ['--max-old-space-size=4096']),
      ]);
      procs = { hub, subs };
      // Uncounted runs first, WARM_RUNS of each count chosen: a fresh hub process spent its first
      // runs compiling (its feed phase at 100 subscribers took 90 to 140 ms of CPU in the first
      // four runs, 45 to 60 ms after), and what is measured is a hub that has been serving a while.
      for (const n of counts) {
        if ([...chosen].some((c) => c.startsWith(name(n, '')))) for (let i = 0; i < WARM_RUNS; i++) await fanout(procs, n, opsFor(n));
      }
    },
    async teardown() {
      const p = procs;
      procs = undefined;
      if (p) await Promise.all([p.hub.stop(), p.subs.stop()]);
    },
  };
}

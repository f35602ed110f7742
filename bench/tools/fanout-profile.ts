import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BenchChild } from '../lib/processes';
import { removeTemp, tempPath } from '../lib/temp';

/**
 * A CPU profile of the hub while its changes feeds fan `ops` ops out to `n`
 * subscribers (the fan-out bench's feed phase only), and its self time by
 * function, largest first.
 * Run: node -r ts-node/register/transpile-only bench/tools/fanout-profile.ts [n] [ops] [file]
 * (FANOUT_WARM=<k>: k feed phases first, neither profiled nor counted; FANOUT_BARE=1: then the bare broadcast's profile too, in `<file>.bare`; FANOUT_CPU, FANOUT_PERF,
 * FANOUT_STRACE: see cpuSplit, perfRecord, straceCount).
 */
interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

function selfTimes(p: Profile, top: number): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id);
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    if (!n) return;
    const f = n.callFrame;
    const key = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(node_modules|libs|apps)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [`total ${(total / 1000).toFixed(1)} ms`, ...rows.map(([k, us]) => `${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`)];
}

type Cpu = { us: number; user: number; system: number; main?: number };

/** The hub's CPU (ms: all, user, system, main thread) between two readings. */
const spent = (a: Cpu, b: Cpu) => [b.us - a.us, b.user - a.user, b.system - a.system, (b.main ?? 0) - (a.main ?? 0)].map((x) => (x / 1000).toFixed(1)).join(' / ');

/** FANOUT_CPU=<runs>: no profile; the hub's CPU split for the feeds and for the bare broadcast, `runs` times on the same subscribers. */
async function cpuSplit(hub: BenchChild, subs: BenchChild, ops: number, runs: number): Promise<void> {
  console.log('ms all / user / system / main thread');
  for (let i = 0; i < runs; i++) {
    const c0 = await hub.request<Cpu>('cpu');
    await subs.request('feed', { ops });
    const c1 = await hub.request<Cpu>('cpu');
    const { frames } = await subs.request<{ frames: unknown[] }>('frames');
    await hub.request('frames', { frames });
    await subs.request('armBare', { ops });
    const c2 = await hub.request<Cpu>('cpu');
    await hub.request('bare');
    await subs.request('bare');
    const c3 = await hub.request<Cpu>('cpu');
    console.log(`feeds ${spent(c0, c1)}   bare ${spent(c2, c3)}`);
  }
}

/**
 * FANOUT_PERF=<file>: Linux perf samples of the hub's CPU (not wall time: a loaded machine does not skew them)
 * over five feed phases, into <file>; run with BENCH_CHILD_ARGS=--perf-basic-prof for JavaScript names.
 */
async function perfRecord(hub: BenchChild, subs: BenchChild, ops: number, file: string): Promise<void> {
  const perf = spawn('perf', ['record', '-g', '-e', 'cpu-clock', '-F', '4000', '-p', String(hub.pid), '-o', file], { stdio: 'inherit' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < 5; i++) await subs.request('feed', { ops });
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.once('exit', resolve));
}

/** FANOUT_STRACE=<file>: the hub's system calls (counts, every thread) over one feed phase, into <file>. */
async function straceCount(hub: BenchChild, subs: BenchChild, ops: number, file: string): Promise<void> {
  const strace = spawn('strace', ['-c', '-f', '-p', String(hub.pid), '-o', file], { stdio: 'inherit' });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await subs.request('feed', { ops });
  strace.kill('SIGINT');
  await new Promise((resolve) => strace.once('exit', resolve));
  console.log(readFileSync(file, 'utf8'));
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100);
  const ops = Number(process.argv[3] ?? 2000);
  const file = process.argv[4] ?? '/tmp/fanout-hub.cpuprofile';
  const [hub, subs] = await Promise.all([
    BenchChild.spawn('fanout-hub', 'bench/children/fanout-hub-process.ts'),
    BenchChild.spawn('fanout-subs', 'bench/children/fanout-subscribers.ts', 180_000, ['--max-old-space-size=4096']),
  ]);
  const path = tempPath('fanout-profile');
  try {
    const { port } = await hub.request<{ port: number }>('start', { path, token: 'bench-token', ops });
    await subs.request('connect', { url: `http://127.0.0.1:${port}/syncom`, token: 'bench-token', n });
    // FANOUT_WARM=<k>: k feed phases first, so a profile shows code the JIT has compiled rather than compiling it.
    for (let i = Number(process.env.FANOUT_WARM ?? 0); i > 0; i--) await subs.request('feed', { ops });
    if (process.env.FANOUT_CPU) return await cpuSplit(hub, subs, ops, Number(process.env.FANOUT_CPU));
    if (process.env.FANOUT_PERF) return await perfRecord(hub, subs, ops, process.env.FANOUT_PERF);
    if (process.env.FANOUT_STRACE) return await straceCount(hub, subs, ops, process.env.FANOUT_STRACE);
    await hub.request('profile');
    await subs.request('feed', { ops });
    const { encodings } = await hub.request<{ encodings: number }>('profileStop', { file });
    console.log(`${encodings} pages encoded so far`);
    for (const line of selfTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile, 45)) console.log(line);
    if (!process.env.FANOUT_BARE) return;
    // The bare broadcast of the same frames, profiled the same way.
    const { frames } = await subs.request<{ frames: unknown[] }>('frames');
    await hub.request('frames', { frames });
    await subs.request('armBare', { ops });
    await hub.request('profile');
    await hub.request('bare');
    await subs.request('bare');
    await hub.request('profileStop', { file: `${file}.bare` });
    for (const line of selfTimes(JSON.parse(readFileSync(`${file}.bare`, 'utf8')) as Profile, 25)) console.log(line);
  } finally {
    await subs.request('close').catch(() => undefined);
    await hub.request('stop').catch(() => undefined);
    await Promise.all([hub.stop(), subs.stop()]);
    removeTemp(path);
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

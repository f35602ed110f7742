import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, packOps, type Storage } from '../../libs/syncom/src';
import { mainThreadCpuUs, processCpuUs } from '../lib/cpu';
import { memoryBackend, seedFsKeys } from '../lib/nodes';
import { makeRecord } from '../lib/record';

/**
 * The hub's push path alone, in one process, with no socket.io: what
 * `hub/socketio/ingest/4-peers` spends in the engine. Four writers sign
 * `count` records each (untimed); their ops are packed and sent through a
 * JSON text and back, as a socket.io message carries them, in pages of 500;
 * then a hub storage (fs backend, signatures 'require', records scoped by
 * `$type` as apps/hub scopes them) takes the four peers' pages at once, each
 * peer's in order, through its host unit. Prints the time and the CPU per op
 * (every thread, then the main thread). A/B tool for the push path:
 *
 *   node -r ts-node/register/transpile-only bench/tools/ingest-replay.ts [count] [runs]
 *
 * PROFILE=<file> samples the timed part with V8's profiler (wall time: under
 * load it charges a waiting main thread to whatever it ran last). For CPU per
 * function, MARKS=1 prints each run's window on CLOCK_MONOTONIC; record with
 * `perf record -k CLOCK_MONOTONIC -g -- node --perf-prof ...`, `perf inject
 * --jit`, then `perf report --time <window> --tid <main thread>`.
 */
const PAGE = 500;
const PEERS = 4;
const profiles: object[] = [];

async function peerPages(i: number, count: number): Promise<string[]> {
  const s = await open({ path: `p${i}`, backend: memoryBackend(), sync: { retention: { ops: Number.MAX_SAFE_INTEGER } } });
  try {
    for (let k = 0; k < count; k += 100) {
      await Promise.all(Array.from({ length: Math.min(100, count - k) }, (_, j) => s.insert({ ...makeRecord(k + j), $type: `p${i}` })));
    }
    await s.replica.idle();
    const ops = s.replica.read(0).map((e) => e.op).filter((op) => op.origin === s.id);
    const pages: string[] = [];
    for (let k = 0; k < ops.length; k += PAGE) pages.push(JSON.stringify({ ops: packOps(ops.slice(k, k + PAGE)) }));
    return pages;
  } finally {
    await s.close();
  }
}

/** With PROFILE=<file>, the timed part of every run is sampled by V8's profiler (one profile, every run). */
const profiler = process.env.PROFILE ? new Session() : undefined;

async function run(peers: string[][], ids: string[]): Promise<{ ms: number; cpu: number; main: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'ingest-replay-'));
  seedFsKeys(dir);
  const scope = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
  const hub: Storage = await open({ path: dir, sync: { signatures: 'require', scope } });
  try {
    const unit = hub.sync.unit({ access: 'public' });
    const contexts = await Promise.all(peers.map(async (_, i) => {
      const context = {};
      await unit.call('hello', { node: ids[i], scopes: [`p${i}`], vector: {}, epoch: 'e', versions: [1] }, context);
      return context;
    }));
    await profiler?.post('Profiler.start');
    const [t0, c0, m0] = [performance.now(), processCpuUs(), mainThreadCpuUs() ?? NaN];
    const mono0 = Number(process.hrtime.bigint());
    await Promise.all(peers.map(async (pages, i) => {
      for (const page of pages) await unit.call('push', JSON.parse(page), contexts[i]);
    }));
    await hub.replica.idle();
    const x = { ms: performance.now() - t0, cpu: processCpuUs() - c0, main: (mainThreadCpuUs() ?? NaN) - m0 };
    // With MARKS set, the timed window on CLOCK_MONOTONIC in seconds, to cut a `perf record -k CLOCK_MONOTONIC` profile to it (perf report --time a,b).
    if (process.env.MARKS) console.log(`window ${(mono0 / 1e9).toFixed(6)},${(Number(process.hrtime.bigint()) / 1e9).toFixed(6)}`);
    if (profiler) profiles.push((await profiler.post('Profiler.stop')).profile);
    const ops = Object.values(hub.replica.committedVector).reduce((a, b) => a + b, 0);
    return { ms: x.ms, cpu: x.cpu / ops, main: x.main / ops };
  } finally {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 2000);
  const runs = Number(process.argv[3] ?? 5);
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
  }
  const made = await Promise.all(Array.from({ length: PEERS }, (_, i) => peerPages(i, count)));
  const ids = made.map((pages) => (JSON.parse(pages[0]) as { ops: [string][] }).ops[0][0]);
  for (let r = 0; r < runs; r++) {
    const x = await run(made, ids);
    if (profiles.length) writeFileSync(`${process.env.PROFILE}.${r}.cpuprofile`, JSON.stringify(profiles.pop()));
    console.log(`run ${r}: ${(PEERS * count / x.ms * 1000).toFixed(0)} ops/s, cpu ${x.cpu.toFixed(1)} µs/op, main ${x.main.toFixed(1)} µs/op`);
  }
}

void main();

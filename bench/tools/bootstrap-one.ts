import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { HostUnit, Storage } from '../../libs/syncom/src';
import { mainThreadCpuUs, processCpuUs } from '../lib/cpu';
import { bootstrapFrom, openDialer, openNode } from '../lib/nodes';
import { makeRecord } from '../lib/record';
import { PAGE_SIZE } from '../suites/baselines';

/**
 * One bootstrap at a time from a hub of `count` records (memory backends and
 * link, as bench/suites/bootstrap.ts sets them up), in one process: per run,
 * the wall and CPU time until the records are readable (the 'bootstrap'
 * event) and until every merge op is signed, each against JSON.parse of the
 * same pages in the same run. A/B and profiling tool for the bootstrap:
 *
 *   node -r ts-node/register/transpile-only bench/tools/bootstrap-one.ts [count] [runs]
 *
 * With PROFILE=<file>, each run is sampled by V8's profiler, until readable
 * (<file>.<run>.readable.cpuprofile) and from there until signed
 * (<file>.<run>.signed.cpuprofile).
 */
const profiler = process.env.PROFILE ? new Session() : undefined;

/** The host's snapshot pages as their JSON text, fetched once through the unit (untimed). */
async function pagesOf(unit: HostUnit): Promise<string[]> {
  const context = {};
  await unit.call('hello', { node: 'bench-pages', vector: {}, epoch: 'bench', schema: null, scopes: ['*'] }, context);
  const pages: string[] = [];
  let args: { token?: string; offset?: number } = {};
  for (;;) {
    const page = (await unit.call('snapshot', args, context)) as { token: string; next: number | null };
    pages.push(JSON.stringify(page));
    if (page.next === null) return pages;
    args = { token: page.token, offset: page.next };
  }
}

function parseMs(pages: string[]): number {
  const t0 = performance.now();
  let sink = 0;
  for (const p of pages) sink += (JSON.parse(p) as { entries: unknown[] }).entries.length;
  if (sink < 0) throw new Error('unreachable');
  return performance.now() - t0;
}

/** Write the profile taken since the last start; start the next unless `last`. */
async function saveProfile(name: string, last = false): Promise<void> {
  if (!profiler) return;
  writeFileSync(`${process.env.PROFILE}.${name}.cpuprofile`, JSON.stringify((await profiler.post('Profiler.stop')).profile));
  if (!last) await profiler.post('Profiler.start');
}

async function boot(unit: HostUnit, n: number, count: number): Promise<{ ms: number; cpu: number; main: number; signedMs: number; signedCpu: number }> {
  const dialer: Storage = await openDialer(`dialer-${n}`, unit);
  try {
    await profiler?.post('Profiler.start');
    const [t0, c0, m0] = [performance.now(), processCpuUs(), mainThreadCpuUs() ?? NaN];
    const records = await bootstrapFrom(dialer);
    const [t1, c1, m1] = [performance.now(), processCpuUs(), mainThreadCpuUs() ?? NaN];
    await saveProfile(`${n}.readable`);
    if (records !== count) throw new Error(`joined ${records}, not ${count}`);
    await dialer.replica.signed();
    const [t2, c2] = [performance.now(), processCpuUs()];
    await saveProfile(`${n}.signed`, true);
    const listed = await dialer.list();
    if (listed.length !== count) throw new Error(`listed ${listed.length}, not ${count}`);
    return { ms: t1 - t0, cpu: (c1 - c0) / 1000, main: (m1 - m0) / 1000, signedMs: t2 - t0, signedCpu: (c2 - c0) / 1000 };
  } finally {
    await dialer.close();
  }
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 100_000);
  const runs = Number(process.argv[3] ?? 3);
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  }
  const hub = await openNode('hub');
  try {
    for (let i = 0; i < count; i += 1000) await Promise.all(Array.from({ length: Math.min(1000, count - i) }, (_, k) => hub.insert(makeRecord(i + k))));
    const unit = hub.sync.unit({ access: 'public', pageSize: PAGE_SIZE });
    const pages = await pagesOf(unit);
    for (let r = 0; r < runs; r++) {
      const parse = parseMs(pages);
      const x = await boot(unit, r, count);
      const f = (v: number) => v.toFixed(0);
      // With --expose-gc, the heap left once the run's dialer is closed: a leak shows as growth from run to run.
      const heap = typeof global.gc === 'function' ? (global.gc(), `, heap after ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`) : '';
      console.log(`run ${r}: readable ${f(x.ms)} ms (cpu ${f(x.cpu)}, main ${f(x.main)}), signed ${f(x.signedMs)} ms (cpu ${f(x.signedCpu)}); parse ${parse.toFixed(1)} ms; ratio readable ${(parse / x.ms).toFixed(3)} signed ${(parse / x.signedMs).toFixed(3)}${heap}`);
    }
  } finally {
    await hub.close();
  }
}

void main();

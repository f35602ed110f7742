import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SimReport, SimulationOptions } from 'syncom/testing';
import type { ReportRequest, SeedAnswer, SeedRequest } from './seed-worker';

/**
 * The seeds a convergence suite runs, from the environment:
 * - SIM_SEEDS seeds per topology (CI 100; `npm run test:hunt` 1000): the
 *   mesh runs seeds SIM_FIRST (default 1) to SIM_FIRST + SIM_SEEDS - 1, and
 *   the star the same seeds, each topology's split evenly across its files
 *   (see convergence.ts);
 * - SIM_SEED=n replays that one seed alone (in both topologies);
 * - SIM_OPS writes per run (CI 1000; hunt 10000);
 * - SIM_SIGN_EVERY: every n-th seed signs and verifies its ops (default 25; 1 = all);
 * - SIM_WORKER=0 runs the seeds in jest's own process (for a debugger or
 *   --cpu-prof) instead of a worker thread.
 */
export const tier = {
  /** Every seed of a topology, or with SIM_SEED the one to replay. */
  seeds(): number[] {
    if (process.env.SIM_SEED) return [Number(process.env.SIM_SEED)];
    const first = Number(process.env.SIM_FIRST ?? 1);
    // 100 seeds of a topology run every fault kind many times over (each seed draws its own mix) and 4 signed seeds.
    return Array.from({ length: Number(process.env.SIM_SEEDS ?? 100) }, (_, i) => first + i);
  },
  writes: Number(process.env.SIM_OPS ?? 1000),
  signEvery: Number(process.env.SIM_SIGN_EVERY ?? 25),
};

/** The k-th of `parts` contiguous, near-equal slices of the seeds (k from 1); a replayed seed is the first part's. */
export function part(seeds: number[], k: number, parts: number): number[] {
  if (process.env.SIM_SEED) return k === 1 ? seeds : [];
  const from = Math.round(((k - 1) * seeds.length) / parts);
  return seeds.slice(from, Math.round((k * seeds.length) / parts));
}

/** Seeds in runs of `size`, one test each (a failing run names its seeds; each stays within its timeout). */
export function chunks(seeds: number[], size: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < seeds.length; i += size) out.push(seeds.slice(i, i + size));
  return out;
}

const REGISTER = join(__dirname, '..', '..', '..', '..', 'scripts', 'register-src.js');
let worker: Worker | undefined;

/**
 * The file's seed thread, started at its first run. Jest's sandbox (its
 * module registry, its async context on every promise) makes the engine's
 * promise-heavy work about half as slow again; the thread runs the sources
 * in plain Node, one seed at a time, as the same code in the same order, so
 * a seed traces alike in either place.
 */
function seedThread(): Worker {
  worker ??= new Worker(`require(${JSON.stringify(REGISTER)}); require(${JSON.stringify(join(__dirname, 'seed-worker.ts'))});`, { eval: true });
  return worker;
}

/** End the seed thread (a file's afterAll). */
export async function stopSeeds(): Promise<void> {
  const w = worker;
  worker = undefined;
  await w?.terminate();
}

/** Run seeds in this process (SIM_WORKER=0). */
async function runHere(request: SeedRequest, report: (failure: string) => void): Promise<void> {
  const { describeFailure, simulate } = await import('syncom/testing');
  for (const seed of request.seeds) {
    const signatures = request.signEvery > 0 && seed % request.signEvery === 0;
    const r = await simulate({ ...request.options, seed, writes: request.writes, signatures });
    if (r.problems.length) report(describeFailure(r, request.replay.replace('{seed}', String(seed))));
  }
}

/** Ask the seed thread; each answer but the last goes to `take`. */
function askThread(request: SeedRequest | ReportRequest, take: (m: SeedAnswer) => void, what: string): Promise<void> {
  const w = seedThread();
  return new Promise((resolve, reject) => {
    const done = (e?: Error) => {
      w.off('message', onMessage).off('error', done).off('exit', onExit);
      if (e) reject(e);
      else resolve();
    };
    const onMessage = (m: SeedAnswer) => {
      if (m.done) done();
      else take(m);
    };
    const onExit = (code: number) => done(new Error(`the seed thread exited (code ${code}) before ${what} finished`));
    w.on('message', onMessage).on('error', done).on('exit', onExit);
    w.postMessage(request);
  });
}

/** Run seeds on the seed thread. */
function runThere(request: SeedRequest, report: (failure: string) => void): Promise<void> {
  return askThread(request, (m) => m.failure && report(m.failure), `seeds ${request.seeds.join(', ')}`);
}

/**
 * Run seeds one after another; returns a report for each failing one, led by
 * its seed and how to replay it (also printed at once, so a run cut short by
 * its timeout still shows it).
 */
export async function runSeeds(seeds: number[], options: Omit<SimulationOptions, 'seed'>): Promise<string[]> {
  const failures: string[] = [];
  const report = (text: string) => {
    console.error(text);
    failures.push(text);
  };
  const request: SeedRequest = { seeds, options, writes: tier.writes, signEvery: tier.signEvery, replay: `SIM_SEED={seed} SIM_OPS=${tier.writes} npx jest libs/syncom/test/sim` };
  await (process.env.SIM_WORKER === '0' ? runHere(request, report) : runThere(request, report));
  return failures;
}

/**
 * Run simulations one after another, each with its options as given, on the
 * file's seed thread (or here with SIM_WORKER=0): their reports, in order.
 * For a file that reads a run's stats, not only its problems (a file that
 * uses it ends the thread in its afterAll, stopSeeds).
 */
export async function simulateAll(runs: SimulationOptions[]): Promise<SimReport[]> {
  if (process.env.SIM_WORKER === '0') {
    const { simulate } = await import('syncom/testing');
    const here: SimReport[] = [];
    for (const options of runs) here.push(await simulate(options));
    return here;
  }
  const reports: SimReport[] = [];
  await askThread({ runs }, (m) => m.report && reports.push(m.report), `runs of seeds ${runs.map((r) => r.seed).join(', ')}`);
  return reports;
}

/** A test's timeout for a run of seeds: generous, since a loaded machine is slower. */
export const timeoutFor = (seeds: number): number => 30_000 + seeds * tier.writes * 20;

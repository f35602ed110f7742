import { describeFailure, simulate, type SimulationOptions } from 'syncom/testing';

/**
 * The seeds a convergence suite runs, from the environment:
 * - SIM_SEEDS seeds per topology (CI 200; `npm run test:hunt` 1000): the
 *   mesh runs seeds SIM_FIRST (default 1) to SIM_FIRST + SIM_SEEDS - 1, and
 *   the star the same seeds, each topology's split evenly across its files
 *   (see convergence.ts);
 * - SIM_SEED=n replays that one seed alone (in both topologies);
 * - SIM_OPS writes per run (CI 1000; hunt 10000);
 * - SIM_SIGN_EVERY: every n-th seed signs and verifies its ops (default 25; 1 = all).
 */
export const tier = {
  /** Every seed of a topology, or with SIM_SEED the one to replay. */
  seeds(): number[] {
    if (process.env.SIM_SEED) return [Number(process.env.SIM_SEED)];
    const first = Number(process.env.SIM_FIRST ?? 1);
    return Array.from({ length: Number(process.env.SIM_SEEDS ?? 200) }, (_, i) => first + i);
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

/**
 * Run seeds one after another; returns a report for each failing one, led by
 * its seed and how to replay it (also printed at once, so a run cut short by
 * its timeout still shows it).
 */
export async function runSeeds(seeds: number[], options: Omit<SimulationOptions, 'seed'>): Promise<string[]> {
  const failures: string[] = [];
  for (const seed of seeds) {
    const signatures = tier.signEvery > 0 && seed % tier.signEvery === 0;
    const report = await simulate({ ...options, seed, writes: tier.writes, signatures });
    if (report.problems.length === 0) continue;
    const text = describeFailure(report, `SIM_SEED=${seed} SIM_OPS=${tier.writes} npx jest libs/syncom/test/sim`);
    console.error(text);
    failures.push(text);
  }
  return failures;
}

/** A test's timeout for a run of seeds: generous, since a loaded machine is slower. */
export const timeoutFor = (seeds: number): number => 30_000 + seeds * tier.writes * 20;

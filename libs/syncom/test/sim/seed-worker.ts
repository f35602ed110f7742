import { parentPort } from 'node:worker_threads';
import { describeFailure, simulate, type SimReport, type SimulationOptions } from 'syncom/testing';

/** What the test side asks: run these seeds one after another. */
export interface SeedRequest {
  seeds: number[];
  options: Omit<SimulationOptions, 'seed' | 'writes' | 'signatures'>;
  writes: number;
  signEvery: number;
  /** The command that replays a seed, with {seed} for its number. */
  replay: string;
}

/** What a test that reads the reports asks: run these simulations one after another, as given. */
export interface ReportRequest {
  runs: SimulationOptions[];
}

/** One answer per seed (a failing one's report as text) or per run asked for by a ReportRequest (its report), then one with done. */
export interface SeedAnswer {
  seed?: number;
  failure?: string;
  report?: SimReport;
  done?: true;
}

/** A convergence file's seeds: each failing one's report as text, led by how to replay it. */
async function runSeeds(m: SeedRequest, answer: (a: SeedAnswer) => void): Promise<void> {
  for (const seed of m.seeds) {
    const signatures = m.signEvery > 0 && seed % m.signEvery === 0;
    const replay = m.replay.replace('{seed}', String(seed));
    let failure: string | undefined;
    try {
      const report = await simulate({ ...m.options, seed, writes: m.writes, signatures });
      if (report.problems.length > 0) failure = describeFailure(report, replay);
    } catch (e) {
      failure = `seed ${seed} failed (replay: ${replay}): ${(e as Error).stack ?? String(e)}`;
    }
    answer({ seed, failure });
  }
}

/** Runs as given, each report whole (a report is plain data: it crosses to the test side as it is). */
async function runReports(m: ReportRequest, answer: (a: SeedAnswer) => void): Promise<void> {
  for (const options of m.runs) answer({ report: await simulate(options) });
}

/**
 * The thread that runs a simulation file's seeds (see tiers.ts): plain
 * Node, outside jest's module sandbox, so a seed costs what it costs in an
 * application. Started by tiers.ts with scripts/register-src.js (TypeScript
 * sources, no build step).
 */
const port = parentPort;
if (port) {
  const answer = (a: SeedAnswer) => port.postMessage(a);
  port.on('message', (m: SeedRequest | ReportRequest) => {
    void (async () => {
      await ('runs' in m ? runReports(m, answer) : runSeeds(m, answer));
      answer({ done: true });
    })();
  });
}

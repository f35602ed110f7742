import { parentPort } from 'node:worker_threads';
import { describeFailure, simulate, type SimulationOptions } from 'syncom/testing';

/** What the test side asks: run these seeds one after another. */
export interface SeedRequest {
  seeds: number[];
  options: Omit<SimulationOptions, 'seed' | 'writes' | 'signatures'>;
  writes: number;
  signEvery: number;
  /** The command that replays a seed, with {seed} for its number. */
  replay: string;
}

/** One answer per seed (a failing one's report as text), then one with done. */
export interface SeedAnswer {
  seed?: number;
  failure?: string;
  done?: true;
}

/**
 * The thread that runs a convergence file's seeds (see tiers.ts): plain
 * Node, outside jest's module sandbox, so a seed costs what it costs in an
 * application. Started by tiers.ts with scripts/register-src.js (TypeScript
 * sources, no build step).
 */
const port = parentPort;
if (port) {
  port.on('message', (m: SeedRequest) => {
    void (async () => {
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
        port.postMessage({ seed, failure } satisfies SeedAnswer);
      }
      port.postMessage({ done: true } satisfies SeedAnswer);
    })();
  });
}

import { checkConvergence } from './sim-checks';
import type { SimulationOptions } from './sim-options';
import { Simulation, type SimStats } from './simulation';

/** What one seeded run came to. */
export interface SimReport {
  seed: number;
  /** The trace's SHA-256: equal for two runs of one seed. */
  hash: string;
  /** Broken properties; empty for a good run. */
  problems: string[];
  stats: SimStats;
  /** Writes acknowledged, all nodes. */
  acked: number;
  /** The last decisions of the run, for a failure report. */
  tail: string[];
  /** Wall time of the run and its checks. */
  ms: number;
}

/**
 * Run one seed: start the nodes, run the writes under faults, heal, check
 * convergence (see checkConvergence), close. Never throws for a failing run:
 * a run that breaks (a node never idle, the network never quiet) is a problem
 * of the report too.
 *
 * @example
 * const report = await simulate({ seed: 42, topology: 'star', writes: 200 });
 * if (report.problems.length) throw new Error(describeFailure(report));
 */
export async function simulate(options: SimulationOptions): Promise<SimReport> {
  const started = performance.now();
  const problems: string[] = [];
  // A promise the engine leaves rejected with no handler would crash a real process.
  const unhandled = (e: unknown) => void problems.push(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`);
  process.on('unhandledRejection', unhandled);
  const sim = await Simulation.create(options);
  try {
    await sim.run();
    problems.push(...(await checkConvergence(sim)));
  } catch (e) {
    problems.push(`the run broke: ${(e as Error).stack ?? String(e)}`);
  } finally {
    await sim.close();
    process.off('unhandledRejection', unhandled);
  }
  const acked = sim.nodes.reduce((n, node) => n + node.acked.length, 0);
  return { seed: sim.seed, hash: sim.trace.hash(), problems, stats: sim.stats, acked, tail: sim.trace.tail(40), ms: performance.now() - started };
}

/** A failing report as text: the seed and how to replay it first, then what broke and the last decisions. */
export function describeFailure(r: SimReport, replay = `SIM_SEED=${r.seed}`): string {
  return [
    `seed ${r.seed} failed (replay: ${replay}; trace ${r.hash})`,
    ...r.problems.slice(0, 8),
    `stats: ${JSON.stringify(r.stats)}`,
    'last decisions:',
    ...r.tail,
  ].join('\n');
}

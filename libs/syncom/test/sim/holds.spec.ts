import { describeFailure, type SimReport } from 'syncom/testing';
import { simulateAll, stopSeeds } from './tiers';

/**
 * Schema holds under the simulation's faults (GUAR-26, SCHEMA-7, OPS-17):
 * with `holds` on, one node runs schema version 1 with ahead 'hold', another
 * version 2 and writes whole records stamped v2 among the workload, the rest
 * no schema. Ops and states of v2 reach the v1 node pushed, fed, reconciled
 * and bootstrapped; after every step it holds no record whose meta.v is 2
 * and logged nothing of v2 unheld. After healing it reopens with version 2,
 * the held ops and states land, and it converges with the oracle like every
 * other node (sim-holds.ts).
 */

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const WRITES = 200;

function run(topology: 'mesh' | 'star'): Promise<SimReport[]> {
  return simulateAll(SEEDS.map((seed) => ({ seed, writes: WRITES, holds: true, topology })));
}

describe('simulation: schema holds on every path', () => {
  afterAll(stopSeeds);

  for (const topology of ['mesh', 'star'] as const) {
    it(`GUAR-26 SCHEMA-7 OPS-17 GUAR-1: ${topology} seeds ${SEEDS.join(', ')} (${WRITES} writes, holds on): the v1 node applies nothing of v2 by any path, held merges included, and converges once reopened with v2`, async () => {
      const reports = await run(topology);
      expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
      expect(reports.every((r) => (r.stats.held ?? 0) > 0)).toBe(true);
      expect(reports.reduce((n, r) => n + (r.stats.heldMerges ?? 0), 0)).toBeGreaterThan(0);
    }, 120_000);
  }
});

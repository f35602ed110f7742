import { describeFailure } from 'syncom/testing';
import { simulateAll, stopSeeds } from './tiers';

/**
 * One owner per storage path under the simulation's crashes (DESIGN, second
 * round): with `owners` on, every reboot checks that a second open() of the
 * node's disk fails with LOCKED while the old process's storage is still
 * open, that closing that storage against its dead disk lets go of the lock,
 * and that the rebooted storage owns its new disk alike (sim-owners.ts).
 */

/** Seeds whose runs reboot nodes (crashes are drawn among the faults). */
const SEEDS = [3, 6, 7, 8, 13, 14];

describe('simulation: one owner per storage path at every reboot', () => {
  afterAll(stopSeeds);

  it(`GUAR-1: seeds ${SEEDS.join(', ')} (odd mesh, even star; 200 writes, owners on): every second open() fails with LOCKED, every closed storage lets go of its disk, the nodes converge`, async () => {
    const reports = await simulateAll(SEEDS.map((seed) => ({ seed, writes: 200, owners: true, topology: seed % 2 ? 'mesh' : 'star' })));
    expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
    expect(reports.filter((r) => (r.stats.ownerChecks ?? 0) > 0).length).toBeGreaterThanOrEqual(SEEDS.length / 2);
  }, 120_000);
});

import { describeFailure, simulate, type SimReport } from 'syncom/testing';

/**
 * Clocks hours apart (CLK-2, CLK-10): the convergence suites offset each
 * node's clock within ±30 s; here within ±12 hours, the engine's default
 * maxSkew of a day between the fastest and the slowest, so every concurrent
 * write is won by a clock far ahead, and a node's own stamps climb to the
 * fastest clock it heard from (CLK-6) across crashes and reboots (CLK-8).
 * No stamp is refused: none is more than a day ahead of any node's clock.
 */

const SEEDS = [1, 2, 3, 4, 5, 6];

describe('simulation: clocks up to a day apart', () => {
  it(`CLK-2 CLK-6 CLK-8 CLK-10 GUAR-1 GUAR-6: seeds ${SEEDS.join(', ')} (odd mesh, even star; 300 writes, maxSkew one day, purges on): the nodes converge on the oracle, no acknowledged write is lost and none is refused for skew`, async () => {
    const reports: SimReport[] = [];
    for (const seed of SEEDS) {
      reports.push(await simulate({ seed, writes: 300, maxSkew: 86_400_000, purges: true, topology: seed % 2 ? 'mesh' : 'star' }));
    }
    expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
  }, 120_000);
});

import { describeFailure, simulate, type SimReport } from 'syncom/testing';

/**
 * Sealed records beside clear ones under the simulation's faults (GUAR-19):
 * with `sealed` on, a quarter of a node's record writes go to its own sealed
 * record instead, so sealed ops take seqs of the node's sealed stream between
 * its clear ones, through crashes, reboots and purges of clear records. After
 * healing the clear records converge as in every run (no hole in any stream a
 * sealed op could have left), no node holds another node's sealed record, no
 * acknowledged sealed write is lost and no sealed seq names two ops.
 */

const SEEDS = [1, 2, 3, 4, 5, 6];

describe('simulation: sealed records beside clear ones', () => {
  it(`GUAR-19 GUAR-1 GUAR-6 OPS-10: seeds ${SEEDS.join(', ')} (odd mesh, even star; 300 writes, sealed and purges on): the clear records converge, sealed ones stay with their writer, and no acknowledged write of either is lost`, async () => {
    const reports: SimReport[] = [];
    for (const seed of SEEDS) {
      reports.push(await simulate({ seed, writes: 300, sealed: true, purges: true, topology: seed % 2 ? 'mesh' : 'star' }));
    }
    expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
    expect(reports.every((r) => (r.stats.sealed ?? 0) > 10)).toBe(true);
    expect(reports.reduce((n, r) => n + r.stats.crashes, 0)).toBeGreaterThan(0);
  }, 120_000);
});

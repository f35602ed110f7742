import { chunks, runSeeds, tier, timeoutFor } from './tiers';

const IDS = 'GUAR-1 GUAR-2 GUAR-6 LOG-2 CLK-2 CLK-10 PROTO-1 PROTO-8 PROTO-9 PROTO-12 PROTO-13 PROTO-18 LOG-11 LOG-12 OPT-10 HOST-16 HOST-17 LINK-9';

/**
 * The five-node mesh (every pair linked; supersedes the ad-hoc fast-check mesh
 * of test/sync): each seed runs its writes on four records and two counters
 * under drops, copies, latency, reordering, cuts, partitions, crashes and
 * skewed clocks, heals, and must end with every node equal to the oracle.
 */
describe('simulation: a five-node mesh', () => {
  for (const seeds of chunks(tier.seeds(), 20)) {
    it(`${IDS}: seeds ${seeds[0]}..${seeds[seeds.length - 1]}, ${tier.writes} writes each: after healing every node holds the same records and vector as the oracle; no acknowledged write is lost; re-delivering the history changes nothing`, async () => {
      expect(await runSeeds(seeds, { topology: 'mesh', nodes: 5 })).toEqual([]);
    }, timeoutFor(seeds.length));
  }
});

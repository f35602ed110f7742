import { chunks, runSeeds, tier, timeoutFor } from './tiers';

const IDS = 'GUAR-1 GUAR-2 GUAR-6 LOG-2 CLK-2 CLK-10 PROTO-1 PROTO-8 PROTO-9 PROTO-12 PROTO-13 PROTO-18 LOG-11 LOG-12 OPT-10 HOST-16 HOST-17 LINK-9';

/**
 * Five clients dialing one hub (which writes too): the same faults as the
 * mesh, but every op travels through the hub, so a client that misses a page
 * has no other way to get it (PROTO-18).
 */
describe('simulation: a five-client star', () => {
  for (const seeds of chunks(tier.seeds(), 20)) {
    it(`${IDS}: seeds ${seeds[0]}..${seeds[seeds.length - 1]}, ${tier.writes} writes each: after healing the hub and every client hold the same records and vector as the oracle; no acknowledged write is lost; re-delivering the history changes nothing`, async () => {
      expect(await runSeeds(seeds, { topology: 'star', nodes: 5 })).toEqual([]);
    }, timeoutFor(seeds.length));
  }
});

import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { chunks, part, runSeeds, stopSeeds, tier, timeoutFor } from './tiers';

const IDS = 'GUAR-1 GUAR-2 GUAR-6 LOG-2 CLK-2 CLK-10 PROTO-1 PROTO-8 PROTO-9 PROTO-12 PROTO-13 PROTO-18 LOG-11 LOG-12 OPT-10 HOST-16 HOST-17 LINK-9';

const TOPOLOGIES = {
  /**
   * The five-node mesh (every pair linked; supersedes the ad-hoc fast-check mesh
   * of test/sync): each seed runs its writes on four records and two counters
   * under drops, copies, latency, reordering, cuts, partitions, crashes and
   * skewed clocks, heals, and must end with every node equal to the oracle.
   */
  mesh: {
    suite: 'simulation: a five-node mesh',
    after: 'after healing every node holds the same records and vector as the oracle',
  },
  /**
   * Five clients dialing one hub (which writes too): the same faults as the
   * mesh, but every op travels through the hub, so a client that misses a page
   * has no other way to get it (PROTO-18).
   */
  star: {
    suite: 'simulation: a five-client star',
    after: 'after healing the hub and every client hold the same records and vector as the oracle',
  },
} as const;

/**
 * The convergence suite of one spec file, `<topology>-<k>.spec.ts`: the k-th
 * of the topology's seeds split evenly across every such file of this folder.
 * Jest runs files, not tests, in parallel: a topology spread over several
 * files lets both workers share its seeds and finish together; adding a file
 * spreads them further. Each file runs its seeds on a thread of its own
 * (runSeeds, tiers.ts), outside jest's sandbox; that thread compiles the
 * engine's sources first (seconds of CPU), so two files a topology, not more.
 */
export function convergenceSuite(file: string): void {
  const match = /^(mesh|star)-(\d+)\.spec\.ts$/.exec(basename(file));
  if (!match) throw new Error(`${basename(file)}: a convergence file is named mesh-<k>.spec.ts or star-<k>.spec.ts`);
  const topology = match[1] as keyof typeof TOPOLOGIES;
  const parts = readdirSync(dirname(file)).filter((f) => new RegExp(`^${topology}-\\d+\\.spec\\.ts$`).test(f)).length;
  const k = Number(match[2]);
  if (k < 1 || k > parts) throw new Error(`${basename(file)}: the ${topology} files are numbered 1 to ${parts}`);
  const seeds = part(tier.seeds(), k, parts);
  const t = TOPOLOGIES[topology];
  describe(`${t.suite} (part ${k} of ${parts})`, () => {
    afterAll(stopSeeds);
    if (seeds.length === 0) it.skip(`${IDS}: no seeds in this part`, () => undefined);
    for (const run of chunks(seeds, 20)) {
      it(`${IDS}: seeds ${run[0]}..${run[run.length - 1]}, ${tier.writes} writes each: ${t.after}; no acknowledged write is lost; re-delivering the history changes nothing`, async () => {
        expect(await runSeeds(run, { topology, nodes: 5 })).toEqual([]);
      }, timeoutFor(run.length));
    }
  });
}

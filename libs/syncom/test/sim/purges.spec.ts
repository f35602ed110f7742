import { describeFailure } from 'syncom/testing';
import { simulateAll, stopSeeds } from './tiers';

/**
 * Purges under the simulation's faults (OPS-10, OPS-11): with `purges` on, a
 * fault step purges a record on one node and makes another reconcile at
 * once, so purges reach nodes by their op, as a marker joined by
 * reconciliation, and by bootstrap. After every step, a node holding a
 * record purged keeps no payload of it in its log, even before the purge's
 * op reached it; after healing every node holds each purged record purged,
 * and no log entry or record file of a node that never crashed keeps its
 * payload (sim-purge.ts).
 */

const SEEDS = [1, 2, 3, 5, 7, 8, 13, 18];

describe('simulation: purges arriving by every path', () => {
  afterAll(stopSeeds);

  it(`OPS-10 OPS-11 GUAR-1: seeds ${SEEDS.join(', ')} (odd mesh, even star; 300 writes, purges on): the nodes converge, every purged record is purged and scrubbed everywhere, and purges reached nodes as reconciled markers`, async () => {
    const reports = await simulateAll(SEEDS.map((seed) => ({ seed, writes: 300, purges: true, topology: seed % 2 ? 'mesh' : 'star', keys: { records: 6 } })));
    expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
    expect(reports.every((r) => (r.stats.purged ?? 0) > 0)).toBe(true);
    // How many purges reconciliation delivers first depends on how soon their ops travel: 21 of these seeds' before
    // a node's next op went at once while its peer was behind (seed 1's 10 now come by op), 11 since. The path is
    // what counts here: it must be taken, in more than one seed.
    expect(reports.reduce((n, r) => n + (r.stats.purgeMerges ?? 0), 0)).toBeGreaterThan(5);
    expect(reports.filter((r) => (r.stats.purgeMerges ?? 0) > 0).length).toBeGreaterThan(1);
  }, 300_000);

  // Seed 13 (mesh) once read as a divergence: a feed the host refused with 428 after the dialer's hello was
  // answered waited for a call that never came (test/sim/sim-link.spec.ts).
  const COUNTERS = [11, 12, 13, 14, 15, 16];

  it(`OPS-9 OPS-10 OPS-11 KIND-4 GUAR-1 GUAR-6: seeds ${COUNTERS.join(', ')} (odd mesh, even star; 300 writes, purges on counter records too): a purge racing incs from every node leaves each node with the same records, the purged counters gone everywhere, no acknowledged write lost and no seq reused`, async () => {
    const reports = await simulateAll(
      COUNTERS.map((seed) => ({ seed, writes: 300, purges: true, purgeCounters: true, topology: seed % 2 ? 'mesh' : 'star', keys: { records: 4, counters: 3 } })),
    );
    expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
    expect(reports.every((r) => (r.stats.purged ?? 0) > 0)).toBe(true);
  }, 120_000);
});

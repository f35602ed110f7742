import { describeFailure } from 'syncom/testing';
import { simulateAll, stopSeeds } from './tiers';

/**
 * Scope moves under anti-entropy (SCOPE-14, SCOPE-19): with `scopes` on,
 * records move between A, B and the global scope with every write of field
 * a, and the last client of the star carries only A, never writes, and
 * reconciles while records move out of A where it cannot see them go. The
 * hub must refuse nothing the whole run (a refused merge would stop the
 * reader's stream), and after healing the reader holds every A and global
 * record as the hub does (sim-scopes.ts).
 */

const SEEDS = [1, 2, 3, 4, 5, 6, 8, 9];

describe('simulation: scope moves under anti-entropy', () => {
  afterAll(stopSeeds);

  it(`SCOPE-14 SCOPE-19 GUAR-1: star seeds ${SEEDS.join(', ')} (300 writes, scopes on): no refusal at the hub, no stream stopped, the A reader equal to the hub on A and global records, the writers converged`, async () => {
    const reports = await simulateAll(SEEDS.map((seed) => ({ seed, writes: 300, scopes: true, topology: 'star', keys: { records: 6 } })));
    expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
  }, 300_000);

  it('OPS-10 SCOPE-19: with purges too, star seeds 1 to 12 (300 writes; in 1, 3 and 7 a record the reader held left A and was purged in B): the A reader, once it reconciled, holds every record the hub purged as purged, its log and record files scrubbed of it', async () => {
    const seeds = Array.from({ length: 12 }, (_, i) => i + 1);
    const reports = await simulateAll(seeds.map((seed) => ({ seed, writes: 300, scopes: true, purges: true, topology: 'star', keys: { records: 6 } })));
    expect(reports.filter((r) => r.problems.length).map((r) => describeFailure(r))).toEqual([]);
  }, 300_000);
});

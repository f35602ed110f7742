import { RECONCILE_DEFAULTS } from '../../src/reconcile';
import { driftedSets, expectedDiff, runProtocol } from './helpers';

const sorted = (xs: string[]) => [...xs].sort();

// Measured with the defaults (B 16, listBelow 32, frameLimit 512 KiB), seed 9; see RECONCILE.md, Costs.
describe('RECON reconciliation at scale', () => {
  it.each([
    [1000, 0.01, 2],
    [1000, 0.5, 2],
    [100_000, 0.01, 4],
    [100_000, 0.5, 7],
  ])('%i items, %d differing: exact, in at most %i round trips, every message within the frame', (n, diff, rounds) => {
    const { a, b } = driftedSets(n, diff, 9);
    const run = runProtocol(a, b);
    expect({ have: sorted(run.have), need: sorted(run.need) }).toEqual(expectedDiff(a, b));
    expect(run.rounds).toBeLessThanOrEqual(rounds);
    expect(run.largest).toBeLessThanOrEqual(RECONCILE_DEFAULTS.frameLimit);
  });

  it('100k equal items: one round trip, under 100 bytes each way', () => {
    const { a } = driftedSets(100_000, 0, 10);
    const run = runProtocol(a, [...a].reverse());
    expect(run).toMatchObject({ rounds: 1, have: [], need: [] });
    expect(Math.max(run.sent, run.answered)).toBeLessThan(100);
  });
});

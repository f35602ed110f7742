import fc from 'fast-check';
import type { ReconcileItem } from '../../src/reconcile';
import { driftedSets, expectedDiff, fcRuns, pairArb, runProtocol } from './helpers';

const sorted = (xs: string[]) => [...xs].sort();
const found = (run: { have: string[]; need: string[] }) => ({ have: sorted(run.have), need: sorted(run.need) });

const tuning = fc.record({
  branching: fc.integer({ min: 2, max: 24 }),
  listBelow: fc.integer({ min: 2, max: 48 }),
  frameLimit: fc.constantFrom(32 * 1024, 40 * 1024, 512 * 1024),
});

/** Ids of 400-512 characters that share long prefixes of characters JSON escapes six-fold: the longest bounds. */
function longIdSets(n: number, seed: number): { a: ReconcileItem[]; b: ReconcileItem[] } {
  const stem = '\u0001'.repeat(400);
  const { a, b } = driftedSets(n, 0.4, seed);
  const grow = (x: ReconcileItem): ReconcileItem => ({ ...x, ts: x.ts % 3, id: `${stem}${x.id}`.padEnd(400 + (x.ts % 112), '\u0002') });
  return { a: a.map(grow), b: b.map(grow) };
}

describe('RECON reconciliation: properties', () => {
  it('finds exactly what each side lacks or holds differently, for any sets and tuning', () => {
    fc.assert(
      fc.property(pairArb, tuning, ({ a, b }, o) => {
        expect(found(runProtocol(a, b, o))).toEqual(expectedDiff(a, b));
      }),
      { numRuns: fcRuns(200) },
    );
  });

  it('is symmetric: B initiating finds the same differences, sides swapped', () => {
    fc.assert(
      fc.property(pairArb, ({ a, b }) => {
        const ab = found(runProtocol(a, b));
        const ba = found(runProtocol(b, a));
        expect(ba).toEqual({ have: ab.need, need: ab.have });
      }),
      { numRuns: fcRuns(100) },
    );
  });

  it('takes O(log_B n) round trips when the frame holds a round: at most ceil(log_B(n) / 2) + 2', () => {
    const sizes = fc.record({ n: fc.integer({ min: 0, max: 12_000 }), diff: fc.constantFrom(0, 0.001, 0.01, 0.1), seed: fc.nat() });
    const branching = fc.constantFrom(4, 8, 16, 32);
    fc.assert(
      fc.property(sizes, branching, ({ n, diff, seed }, B) => {
        const { a, b } = driftedSets(n, diff, seed);
        const run = runProtocol(a, b, { branching: B, frameLimit: 16 * 1024 * 1024 });
        expect(found(run)).toEqual(expectedDiff(a, b));
        const bound = Math.ceil(Math.log(Math.max(n, 2)) / Math.log(B) / 2) + 2;
        expect(run.rounds).toBeLessThanOrEqual(bound);
      }),
      { numRuns: fcRuns(25) },
    );
  });

  it('keeps every message under frameLimit, spreading the work over rounds', () => {
    const cases = fc.record({ n: fc.integer({ min: 1000, max: 6000 }), diff: fc.constantFrom(0.05, 0.5, 1), seed: fc.nat() });
    fc.assert(
      fc.property(cases, tuning, ({ n, diff, seed }, o) => {
        const { a, b } = driftedSets(n, diff, seed);
        const frameLimit = 32 * 1024;
        const run = runProtocol(a, b, { ...o, frameLimit });
        expect(run.largest).toBeLessThanOrEqual(frameLimit);
        expect(found(run)).toEqual(expectedDiff(a, b));
      }),
      { numRuns: fcRuns(10) },
    );
  });

  it('keeps under the smallest frameLimit even with 512-character ids that JSON escapes six-fold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 400 }), fc.nat(), tuning, (n, seed, o) => {
        const { a, b } = longIdSets(n, seed);
        const run = runProtocol(a, b, { ...o, frameLimit: 32 * 1024 });
        expect(run.largest).toBeLessThanOrEqual(32 * 1024);
        expect(found(run)).toEqual(expectedDiff(a, b));
      }),
      { numRuns: fcRuns(8) },
    );
  });

  it('keeps under the smallest frameLimit at the widest tuning: 1024-item lists of 512-character ids', () => {
    const { a, b } = longIdSets(3000, 7);
    const run = runProtocol(a, b, { listBelow: 1024, branching: 256, frameLimit: 32 * 1024 });
    expect(run.largest).toBeLessThanOrEqual(32 * 1024);
    expect(found(run)).toEqual(expectedDiff(a, b));
    expect(run.messages.some((m) => m.ranges.some((r) => r[1] === 5))).toBe(true);
  });
});

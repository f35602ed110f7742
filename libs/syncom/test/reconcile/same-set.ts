import type { ItemSet } from '../../src/reconcile';

/**
 * Two sets are the same set: same items in the same order, same tags, same
 * positions for any bound, and the same sum over every prefix and a spread
 * of spans (so every fingerprint a reconciler can ask for agrees).
 */
export function expectSameSet(got: ItemSet, want: ItemSet): void {
  expect(got.size).toBe(want.size);
  const n = want.size;
  for (let k = 0; k < n; k++) {
    expect(got.item(k)).toEqual(want.item(k));
    expect(got.tag(k)).toBe(want.tag(k));
    expect(got.indexAt([want.item(k).ts, want.item(k).id])).toBe(k);
    expect(got.indexAt([want.item(k).ts, `${want.item(k).id}\u0000`])).toBe(want.indexAt([want.item(k).ts, `${want.item(k).id}\u0000`]));
  }
  for (let j = 0; j <= n; j++) expect(got.sum(0, j)).toEqual(want.sum(0, j));
  const step = Math.max(3, Math.ceil(n / 40));
  for (let i = 0; i <= n; i += step) for (let j = i; j <= n; j += step + 2) expect(got.sum(i, j)).toEqual(want.sum(i, j));
  expect(got.indexAt(null)).toBe(n);
  expect(got.indexAt([0, ''])).toBe(0);
}

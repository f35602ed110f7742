import type { Bound, ReconcileItem } from './types';

/** A finite key or bound: (ts, id). */
export type Key = readonly [ts: number, id: string];

/** The lower end of the first range: no item sorts below (0, ''). */
export const MIN_KEY: Key = [0, ''];

/** Order two keys: ts first, then id by UTF-16 code units (compareStamps' order). */
export function compareKeys(a: Key, b: Key): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] === b[1]) return 0;
  return a[1] < b[1] ? -1 : 1;
}

/** Order two bounds, null being the end of the key space. */
export function compareBounds(a: Bound | Key, b: Bound | Key): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return compareKeys(a, b);
}

/** Order two items by key. */
export function compareItems(a: ReconcileItem, b: ReconcileItem): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

/**
 * The shortest bound that sorts above `prev` and not above `next` (prev <
 * next): a new ts alone when the ts differ, else the shortest prefix of
 * next's id that passes prev's. Short bounds keep fingerprint ranges small on
 * the wire.
 */
export function boundBetween(prev: ReconcileItem, next: ReconcileItem): [number, string] {
  if (prev.ts !== next.ts) return [next.ts, ''];
  let k = 0;
  while (k < prev.id.length && prev.id.charCodeAt(k) === next.id.charCodeAt(k)) k++;
  return [next.ts, next.id.slice(0, k + 1)];
}

/** Whether an item's key sorts below a finite bound. */
export function isBelow(it: ReconcileItem, bound: Key): boolean {
  return it.ts !== bound[0] ? it.ts < bound[0] : it.id < bound[1];
}

/** The first index of a sorted item list whose key is not below `bound` (its length for null). */
export function indexAtBound(items: readonly ReconcileItem[], bound: Bound | Key): number {
  if (bound === null) return items.length;
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBelow(items[mid], bound)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

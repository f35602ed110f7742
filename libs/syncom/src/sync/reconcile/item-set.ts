import { fingerprintOf, hashItem, prefixSums, rangeSum, tagOfHash } from './fingerprint';
import { boundBetween, compareItems, indexAtBound, type Key } from './keys';
import type { Bound, ReconcileItem } from './types';
import { WIRE_LIMITS } from './types';

/** A half-open span of a sorted item list, [i, j). */
export interface Span {
  i: number;
  j: number;
}

/**
 * One side's set, sorted by key, with each item's tag and the prefix sums
 * that answer any range's fingerprint in O(1). Immutable once built.
 */
export interface ItemSet {
  readonly items: readonly ReconcileItem[];
  readonly tags: readonly string[];
  readonly sums: Uint32Array;
}

/** Refuse an item a reconciler cannot key: a programmer mistake, so a TypeError. */
function checkItem(it: ReconcileItem, at: number): void {
  const bad = (what: string) => new TypeError(`reconcile: item ${at} ${what}`);
  if (typeof it !== 'object' || it === null) throw bad('is not an object');
  if (!Number.isSafeInteger(it.ts) || it.ts < 0) throw bad('has a ts that is no safe integer >= 0');
  if (typeof it.id !== 'string' || it.id.length === 0 || it.id.length > WIRE_LIMITS.id) throw bad(`has no id of 1-${WIRE_LIMITS.id} characters`);
  if (typeof it.digest !== 'string' || it.digest.length === 0 || it.digest.length > WIRE_LIMITS.digest) {
    throw bad(`has no digest of 1-${WIRE_LIMITS.digest} characters`);
  }
}

/**
 * Sort, check and index the items of one side.
 * @throws TypeError on a malformed item or an id held twice: a scope holds
 * one merge state per record, so two items for one id are a caller's bug.
 */
export function buildItemSet(input: Iterable<ReconcileItem>): ItemSet {
  const items = [...input];
  items.forEach(checkItem);
  items.sort(compareItems);
  const seen = new Set<string>();
  for (const it of items) {
    if (seen.has(it.id)) throw new TypeError(`reconcile: the id ${JSON.stringify(it.id)} is held twice`);
    seen.add(it.id);
  }
  const hashes = items.map(hashItem);
  return { items, tags: hashes.map(tagOfHash), sums: prefixSums(hashes) };
}

/** The span of items in [lower, upper). */
export function spanOf(set: ItemSet, lower: Key, upper: Bound): Span {
  return { i: indexAtBound(set.items, lower), j: indexAtBound(set.items, upper) };
}

/** The fingerprint of a span. */
export function fingerprintSpan(set: ItemSet, s: Span): string {
  return fingerprintOf(rangeSum(set.sums, s.i, s.j), s.j - s.i);
}

/** A span's items as an items range's payload: [id, tag] in key order. */
export function itemsOfSpan(set: ItemSet, s: Span): [string, string][] {
  const out: [string, string][] = [];
  for (let k = s.i; k < s.j; k++) out.push([set.items[k].id, set.tags[k]]);
  return out;
}

/** A span's tags in key order: a tags range's payload. */
export function tagsOfSpan(set: ItemSet, s: Span): string[] {
  return set.tags.slice(s.i, s.j);
}

/**
 * Cut a span into `parts` spans of near-equal size (fewer when it holds fewer
 * items), each with the bound that ends it; the last ends at `upper`.
 */
export function splitSpan(set: ItemSet, s: Span, parts: number, upper: Bound): { span: Span; upper: Bound }[] {
  const n = Math.min(parts, s.j - s.i);
  const out: { span: Span; upper: Bound }[] = [];
  let from = s.i;
  for (let m = 1; m <= n; m++) {
    const to = m === n ? s.j : s.i + Math.floor((m * (s.j - s.i)) / n);
    const end = m === n ? upper : boundBetween(set.items[to - 1], set.items[to]);
    out.push({ span: { i: from, j: to }, upper: end });
    from = to;
  }
  return out;
}

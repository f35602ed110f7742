import { type Bucket, makeBucket } from './buckets';
import { addRow, fingerprintOf, hashItem, ROW, rowBytes, subRow } from './fingerprint';
import { boundBetween, compareItems, indexAtBound, isBelow, type Key } from './keys';
import type { Bound, ReconcileItem } from './types';
import { WIRE_LIMITS } from './types';

/** A half-open span of a sorted item list, [i, j). */
export interface Span {
  i: number;
  j: number;
}

/**
 * One side's set as the reconciler reads it: sorted by key, each item with
 * its tag, and the sum of the hashes of any span. Immutable: a reconciler
 * may read it over several rounds.
 */
export interface ItemSet {
  /** Items in the set. */
  readonly size: number;
  /** The item at position k (0 <= k < size), in key order. */
  item(k: number): ReconcileItem;
  /** The tag of the item at position k. */
  tag(k: number): string;
  /** The first position whose key is not below `bound` (size for null). */
  indexAt(bound: Bound | Key): number;
  /** The sum mod 2^256 of the hashes of positions i..j-1, 32 little-endian bytes. */
  sum(i: number, j: number): Uint8Array;
}

/** Items a bucket of a set built at once holds (an ItemIndex fills its own to half its most, so that the first writes split none). */
const BULK_BUCKET = 512;

/**
 * A set over sorted buckets (see Bucket), frozen: a snapshot of an
 * ItemIndex, or a set built at once. Position lookups cost O(log buckets);
 * a span's sum costs two of them and two row additions, whatever its size.
 */
export class FrozenItems implements ItemSet {
  readonly size: number;
  /** starts[b]: the position of bucket b's first item; starts[buckets] = size. */
  private readonly starts: Int32Array;
  /** Row b: the sum of the hashes of every bucket before b. */
  private readonly sums: Uint32Array;

  constructor(private readonly buckets: readonly Bucket[]) {
    const nb = buckets.length;
    this.starts = new Int32Array(nb + 1);
    this.sums = new Uint32Array((nb + 1) * ROW);
    for (let b = 0; b < nb; b++) {
      const n = buckets[b].items.length;
      this.starts[b + 1] = this.starts[b] + n;
      addRow(this.sums, (b + 1) * ROW, this.sums, b * ROW, buckets[b].pre, n * ROW);
    }
    this.size = this.starts[nb];
  }

  item(k: number): ReconcileItem {
    const b = this.bucketAt(k);
    return this.buckets[b].items[k - this.starts[b]];
  }

  tag(k: number): string {
    const b = this.bucketAt(k);
    return this.buckets[b].tags[k - this.starts[b]];
  }

  indexAt(bound: Bound | Key): number {
    if (bound === null) return this.size;
    // The first bucket whose last item is not below the bound holds the position.
    let lo = 0;
    let hi = this.buckets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const items = this.buckets[mid].items;
      if (isBelow(items[items.length - 1], bound)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.buckets.length) return this.size;
    return this.starts[lo] + indexAtBound(this.buckets[lo].items, bound);
  }

  sum(i: number, j: number): Uint8Array {
    const rows = new Uint32Array(2 * ROW);
    this.prefix(i, rows, 0);
    this.prefix(j, rows, ROW);
    subRow(rows, 0, rows, ROW, rows, 0);
    return rowBytes(rows, 0);
  }

  /** The sum of the first k hashes, into out at o. */
  private prefix(k: number, out: Uint32Array, o: number): void {
    if (k >= this.size) {
      out.set(this.sums.subarray(this.buckets.length * ROW, (this.buckets.length + 1) * ROW), o);
      return;
    }
    const b = this.bucketAt(k);
    addRow(out, o, this.sums, b * ROW, this.buckets[b].pre, (k - this.starts[b]) * ROW);
  }

  /** The bucket holding position k (0 <= k < size). */
  private bucketAt(k: number): number {
    let lo = 0;
    let hi = this.buckets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid] <= k) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** Refuse an item a reconciler cannot key: a programmer mistake, so a TypeError. */
export function checkItem(it: ReconcileItem, at: number | string): void {
  const bad = (what: string) => new TypeError(`reconcile: item ${at} ${what}`);
  if (typeof it !== 'object' || it === null) throw bad('is not an object');
  if (!Number.isSafeInteger(it.ts) || it.ts < 0) throw bad('has a ts that is no safe integer >= 0');
  if (typeof it.id !== 'string' || it.id.length === 0 || it.id.length > WIRE_LIMITS.id) throw bad(`has no id of 1-${WIRE_LIMITS.id} characters`);
  if (typeof it.digest !== 'string' || it.digest.length === 0 || it.digest.length > WIRE_LIMITS.digest) {
    throw bad(`has no digest of 1-${WIRE_LIMITS.digest} characters`);
  }
}

/** An item with its hash (hashItem), when the caller has it already. */
export interface HashedItem {
  item: ReconcileItem;
  hash: Uint8Array;
}

/**
 * Buckets of `size` items over items already checked and sorted by key, each
 * id once, with their hashes (hashItem), for `epoch`.
 */
export function bulkBuckets(items: readonly ReconcileItem[], hashes: readonly Uint8Array[], epoch: number, size = BULK_BUCKET): Bucket[] {
  const out: Bucket[] = [];
  for (let from = 0; from < items.length; from += size) out.push(makeBucket(items.slice(from, from + size), hashes.slice(from, from + size), epoch));
  return out;
}

/** @throws TypeError on an id held twice in sorted items. */
export function checkUnique(sorted: readonly ReconcileItem[]): void {
  const seen = new Set<string>();
  for (const item of sorted) {
    // A scope holds one merge state per record, so two items for one id are a caller's bug.
    if (seen.has(item.id)) throw new TypeError(`reconcile: the id ${JSON.stringify(item.id)} is held twice`);
    seen.add(item.id);
  }
}

/**
 * Sort, check and index the items of one side.
 * @throws TypeError on a malformed item or an id held twice.
 */
export function buildItemSet(input: Iterable<ReconcileItem>): ItemSet {
  const items = [...input];
  items.forEach(checkItem);
  items.sort(compareItems);
  checkUnique(items);
  return new FrozenItems(bulkBuckets(items, items.map(hashItem), 0));
}

/** The span of items in [lower, upper). */
export function spanOf(set: ItemSet, lower: Key, upper: Bound): Span {
  return { i: set.indexAt(lower), j: set.indexAt(upper) };
}

/** The fingerprint of a span. */
export function fingerprintSpan(set: ItemSet, s: Span): string {
  return fingerprintOf(set.sum(s.i, s.j), s.j - s.i);
}

/** A span's items as an items range's payload: [id, tag] in key order. */
export function itemsOfSpan(set: ItemSet, s: Span): [string, string][] {
  const out: [string, string][] = [];
  for (let k = s.i; k < s.j; k++) out.push([set.item(k).id, set.tag(k)]);
  return out;
}

/** A span's tags in key order: a tags range's payload. */
export function tagsOfSpan(set: ItemSet, s: Span): string[] {
  const out: string[] = [];
  for (let k = s.i; k < s.j; k++) out.push(set.tag(k));
  return out;
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
    const end = m === n ? upper : boundBetween(set.item(to - 1), set.item(to));
    out.push({ span: { i: from, j: to }, upper: end });
    from = to;
  }
  return out;
}

import { addHash, addRow, ROW, subRow, tagOfHash } from './fingerprint';
import type { ReconcileItem } from './types';

/**
 * A run of consecutive items of a sorted set, with their tags and the prefix
 * sums of their hashes: row k of `pre` holds the sum of the first k hashes
 * (mod 2^256, ROW little-endian 32-bit limbs), so a sum inside the bucket is
 * one subtraction and a change costs O(bucket), never O(set).
 */
export interface Bucket {
  readonly items: ReconcileItem[];
  readonly tags: string[];
  pre: Uint32Array;
  /**
   * The index epoch allowed to change it in place. A snapshot taken since
   * holds it too: the index then changes a copy (copy-on-write), and the
   * snapshot stays as it was.
   */
  epoch: number;
}

/** A bucket of sorted items, from their hashes (hashItem). */
export function makeBucket(items: ReconcileItem[], hashes: readonly Uint8Array[], epoch: number): Bucket {
  const pre = new Uint32Array((items.length + 1) * ROW);
  const tags: string[] = new Array(hashes.length);
  for (let k = 0; k < hashes.length; k++) {
    addHash(pre, (k + 1) * ROW, pre, k * ROW, hashes[k]);
    tags[k] = tagOfHash(hashes[k]);
  }
  return { items, tags, pre, epoch };
}

/** A copy that `epoch` may change. */
export function cloneBucket(b: Bucket, epoch: number): Bucket {
  return { items: b.items.slice(), tags: b.tags.slice(), pre: b.pre.slice(), epoch };
}

/** The sum of every hash in the bucket: its last row. */
export function bucketTotal(b: Bucket): Uint32Array {
  return b.pre.subarray(b.items.length * ROW, (b.items.length + 1) * ROW);
}

/** Put an item at position k of a writable bucket. */
export function insertAt(b: Bucket, k: number, item: ReconcileItem, tag: string, row: Uint32Array): void {
  const old = b.pre;
  const n = b.items.length;
  b.items.splice(k, 0, item);
  b.tags.splice(k, 0, tag);
  const pre = new Uint32Array((n + 2) * ROW);
  pre.set(old.subarray(0, (k + 1) * ROW));
  for (let r = k + 1; r <= n + 1; r++) addRow(pre, r * ROW, old, (r - 1) * ROW, row, 0);
  b.pre = pre;
}

/** Take the item at position k out of a writable bucket. */
export function removeAt(b: Bucket, k: number): void {
  const old = b.pre;
  const n = b.items.length;
  const hash = new Uint32Array(ROW);
  subRow(hash, 0, old, (k + 1) * ROW, old, k * ROW);
  b.items.splice(k, 1);
  b.tags.splice(k, 1);
  const pre = new Uint32Array(n * ROW);
  pre.set(old.subarray(0, (k + 1) * ROW));
  for (let r = k + 1; r < n; r++) subRow(pre, r * ROW, old, (r + 1) * ROW, hash, 0);
  b.pre = pre;
}

/** Cut a bucket in two halves, new buckets of `epoch`. */
export function splitBucket(b: Bucket, epoch: number): [Bucket, Bucket] {
  const n = b.items.length;
  const h = n >>> 1;
  const left: Bucket = { items: b.items.slice(0, h), tags: b.tags.slice(0, h), pre: b.pre.slice(0, (h + 1) * ROW), epoch };
  const pre = new Uint32Array((n - h + 1) * ROW);
  for (let r = 1; r <= n - h; r++) subRow(pre, r * ROW, b.pre, (h + r) * ROW, b.pre, h * ROW);
  return [left, { items: b.items.slice(h), tags: b.tags.slice(h), pre, epoch }];
}

/** Two neighbouring buckets as one, a new bucket of `epoch`. */
export function joinBuckets(a: Bucket, b: Bucket, epoch: number): Bucket {
  const na = a.items.length;
  const nb = b.items.length;
  const pre = new Uint32Array((na + nb + 1) * ROW);
  pre.set(a.pre.subarray(0, (na + 1) * ROW));
  for (let r = 1; r <= nb; r++) addRow(pre, (na + r) * ROW, a.pre, na * ROW, b.pre, r * ROW);
  return { items: a.items.concat(b.items), tags: a.tags.concat(b.tags), pre, epoch };
}

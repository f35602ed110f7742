import { type Bucket, cloneBucket, insertAt, joinBuckets, removeAt, splitBucket } from './buckets';
import { hashItem, ROW, rowOf, tagOfHash } from './fingerprint';
import { bulkBuckets, checkItem, checkUnique, FrozenItems, type HashedItem, type ItemSet } from './item-set';
import { compareItems, indexAtBound, type Key } from './keys';
import type { ReconcileItem } from './types';

/** ItemIndex's options. */
export interface ItemIndexOptions {
  /** The most items a bucket holds before it is cut in two (4-65,536, default 512). */
  bucket?: number;
}

const DEFAULT_BUCKET = 512;

function checkBucket(x: unknown): number {
  const n = x ?? DEFAULT_BUCKET;
  if (!Number.isSafeInteger(n) || (n as number) < 4 || (n as number) > 65_536) throw new TypeError('reconcile: bucket must be an integer from 4 to 65536');
  return n as number;
}

/**
 * One side's set kept up to date item by item: sorted buckets of items, each
 * with the prefix sums of its hashes, so that putting or deleting an item
 * costs O(bucket + log n), never a rebuild, and a snapshot (what a reconciler
 * reads) costs O(buckets) and stays as it was while the index moves on
 * (copy-on-write buckets). The result is the set buildItemSet makes of the
 * same items: same order, tags and sums.
 * @example
 * const index = new ItemIndex();
 * index.put(entryItem(entry));
 * createReconciler({ set: index.snapshot() });
 */
export class ItemIndex {
  private buckets: Bucket[];
  /** Each held id's ts: where its item sits. */
  private readonly keys = new Map<string, number>();
  private epoch = 1;
  private frozen: ItemSet | undefined;
  private readonly max: number;

  /** @throws TypeError on a malformed item, an id held twice or a bucket size out of range. */
  constructor(items: Iterable<ReconcileItem | HashedItem> = [], o: ItemIndexOptions = {}) {
    this.max = checkBucket(o.bucket);
    const hashed: HashedItem[] = [];
    for (const x of items) {
      const h = 'item' in x ? x : { item: x, hash: hashItem(x) };
      checkItem(h.item, hashed.length);
      hashed.push(h);
    }
    hashed.sort((x, y) => compareItems(x.item, y.item));
    const sorted = hashed.map((h) => h.item);
    checkUnique(sorted);
    this.buckets = bulkBuckets(sorted, hashed.map((h) => h.hash), this.epoch, Math.max(2, this.max >>> 1));
    for (const item of sorted) this.keys.set(item.id, item.ts);
  }

  /** Items held. */
  get size(): number {
    return this.keys.size;
  }

  /** Whether an item of this id is held. */
  has(id: string): boolean {
    return this.keys.has(id);
  }

  /**
   * Put an item, in place of the one its id had. `hash` is hashItem(item),
   * when the caller has it.
   * @throws TypeError on a malformed item.
   */
  put(item: ReconcileItem, hash: Uint8Array = hashItem(item)): void {
    checkItem(item, item?.id);
    this.delete(item.id);
    const b = this.bucketFor([item.ts, item.id]);
    if (b < 0) {
      this.buckets.push({ items: [], tags: [], pre: new Uint32Array(ROW), epoch: this.epoch });
      return this.put(item, hash);
    }
    const bucket = this.writable(b);
    insertAt(bucket, indexAtBound(bucket.items, [item.ts, item.id]), item, tagOfHash(hash), rowOf(hash));
    this.keys.set(item.id, item.ts);
    if (bucket.items.length > this.max) this.buckets.splice(b, 1, ...splitBucket(bucket, this.epoch));
  }

  /** Take out the item of an id; false when none is held. */
  delete(id: string): boolean {
    const ts = this.keys.get(id);
    if (ts === undefined) return false;
    const b = this.bucketFor([ts, id]);
    const bucket = this.writable(b);
    const k = indexAtBound(bucket.items, [ts, id]);
    removeAt(bucket, k);
    this.keys.delete(id);
    this.mend(b);
    return true;
  }

  /** The set as it is now, for a reconciler: unchanged by later puts and deletes. */
  snapshot(): ItemSet {
    if (!this.frozen) {
      this.frozen = new FrozenItems(this.buckets.slice());
      // Every bucket is now shared with the snapshot: the next change copies the one it touches.
      this.epoch++;
    }
    return this.frozen;
  }

  /** The bucket where a key belongs: the first whose last item is not below it, else the last; -1 when none. */
  private bucketFor(key: Key): number {
    let lo = 0;
    let hi = this.buckets.length - 1;
    if (hi < 0) return -1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const items = this.buckets[mid].items;
      if (compareItems(items[items.length - 1], { ts: key[0], id: key[1], digest: '' }) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Bucket b, copied first when a snapshot holds it; the set is changing, so the last snapshot is stale. */
  private writable(b: number): Bucket {
    this.frozen = undefined;
    if (this.buckets[b].epoch !== this.epoch) this.buckets[b] = cloneBucket(this.buckets[b], this.epoch);
    return this.buckets[b];
  }

  /** Keep buckets from thinning out after a delete: an empty one goes, a small one joins a neighbour that has room. */
  private mend(b: number): void {
    const n = this.buckets[b].items.length;
    if (n === 0) {
      this.buckets.splice(b, 1);
      return;
    }
    if (n >= this.max >>> 2) return;
    for (const other of [b + 1, b - 1]) {
      const o = this.buckets[other];
      if (!o || o.items.length + n > this.max) continue;
      const [lo, hi] = other > b ? [b, other] : [other, b];
      this.buckets.splice(lo, 2, joinBuckets(this.buckets[lo], this.buckets[hi], this.epoch));
      return;
    }
  }
}

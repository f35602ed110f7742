/**
 * Every key of the committed records in code-unit order, kept from one
 * paging to the next: the records map only ever gains keys (a delete leaves
 * a tombstone, a purge its marker), and a Map iterates in insertion order,
 * so the keys past the count seen last are the new ones. Only those are
 * sorted and merged in: sorting 100k ids at each bootstrap's first page cost
 * about a twentieth of the whole bootstrap. Each list made is a new array,
 * never changed after: pagings hold on to the one they started with.
 */
export class SortedIds {
  private ids: readonly string[] = [];
  private seen = 0;
  private map?: ReadonlyMap<string, unknown>;

  /** The keys of `map`, sorted. */
  of(map: ReadonlyMap<string, unknown>): readonly string[] {
    if (map !== this.map || map.size < this.seen) {
      // Another map, or one that lost keys (never the committed records): start over.
      this.map = map;
      this.ids = [];
      this.seen = 0;
    }
    if (map.size === this.seen) return this.ids;
    const fresh: string[] = [];
    let i = 0;
    for (const id of map.keys()) if (i++ >= this.seen) fresh.push(id);
    fresh.sort();
    this.ids = this.seen === 0 ? fresh : mergeSorted(this.ids, fresh);
    this.seen = map.size;
    return this.ids;
  }
}

/** Two sorted lists as one (code-unit order, as Array#sort without a comparator). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = b[j] < a[i] ? b[j++] : a[i++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

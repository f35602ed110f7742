import { type Entry, type Field, own, type SetElement } from './entry';
import { SortedMap } from './sorted-map';
import { tagList, TagSet } from './tags';

/**
 * A map of an entry: its fields, a set's elements, a counter's slots. Small
 * ones are plain objects, as JSON and a peer's page give them; past SMALL
 * keys a change makes a SortedMap, whose changes copy a few nodes, not the
 * map. Copying the whole map made every op on a record cost time in the
 * size of the field it touched (docs/security.md): a set grown to 100,000
 * elements made each later add of one element about 90 ms. Read only
 * through the functions here, which take either form.
 */
export type Keyed<V> = Readonly<Record<string, V>> | SortedMap<V>;

/** Keys a changed map may hold and stay a plain object: copying 32 keys costs about what a sorted map's change does. */
export const SMALL = 32;

/** Code-unit order of entries' keys. */
const byKey = (a: readonly [string, unknown], b: readonly [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** The value of `key`, or undefined. */
export function keyedGet<V>(m: Keyed<V>, key: string): V | undefined {
  return m instanceof SortedMap ? m.get(key) : own(m as Record<string, V>, key);
}

/** How many keys the map holds (a plain object's count costs its keys). */
export function keyedSize(m: Keyed<unknown>): number {
  return m instanceof SortedMap ? m.size : Object.keys(m).length;
}

/** The entries: a sorted map's in key order, a plain object's in its own order. */
export function keyedEntries<V>(m: Keyed<V>): [string, V][] {
  return m instanceof SortedMap ? m.entries() : Object.entries(m);
}

/** The entries in key order (code units), as reads and sums need them. */
export function sortedEntries<V>(m: Keyed<V>): [string, V][] {
  if (m instanceof SortedMap) return m.entries();
  // The keys sorted natively (code-unit order, as byKey), then paired: a read of a small record is a hot path.
  return Object.keys(m).sort().map((k) => [k, (m as Record<string, V>)[k]]);
}

/** How many keys a plain object holds, counted up to `limit + 1` at most (no array made). */
function countUpTo(m: object, limit: number): number {
  let n = 0;
  for (const k in m) if (Object.hasOwn(m, k) && ++n > limit) break;
  return n;
}

/** The values, in either order. */
export function keyedValues<V>(m: Keyed<V>): V[] {
  return m instanceof SortedMap ? m.entries().map((e) => e[1]) : Object.values(m);
}

/**
 * A map with `changes` set (a later change of a key wins); `m` is unchanged.
 * A plain map that would pass SMALL keys becomes a sorted map, once.
 */
export function keyedWith<V>(m: Keyed<V>, changes: readonly (readonly [string, V])[]): Keyed<V> {
  if (changes.length === 0) return m;
  let sorted: SortedMap<V>;
  if (m instanceof SortedMap) sorted = m;
  else {
    const size = countUpTo(m, SMALL);
    if (size + changes.length <= SMALL) {
      const out: Record<string, V> = { ...m };
      for (const [k, v] of changes) out[k] = v;
      return out;
    }
    sorted = SortedMap.ofSorted(sortedEntries(m));
  }
  for (const [k, v] of changes) sorted = sorted.set(k, v);
  return sorted;
}

/** A map of `entries` (distinct keys), plain when it holds at most SMALL. */
export function keyedOf<V>(entries: readonly (readonly [string, V])[]): Keyed<V> {
  if (entries.length <= SMALL) {
    const out: Record<string, V> = {};
    for (const [k, v] of entries) out[k] = v;
    return out;
  }
  return SortedMap.ofSorted([...entries].sort(byKey));
}

/**
 * The map as plain JSON data, every level a plain object: what an op's data
 * carries (a merge op of an entry this node holds), so that what a peer, a
 * hook or a test reads is the wire's shape.
 */
export function keyedPlain<V>(m: Keyed<V>): Record<string, V> {
  return m instanceof SortedMap ? Object.fromEntries(m.entries()) : (m as Record<string, V>);
}

/** A set element with its tags as arrays. */
function plainElement(e: SetElement): SetElement {
  return e.add instanceof TagSet || e.rem instanceof TagSet ? { add: tagList(e.add), rem: tagList(e.rem) } : e;
}

/**
 * The entry as plain JSON data, every map a plain object and every tag list
 * an array: what a merge op of an entry held here carries, so that a hook, a
 * feed or a test reads the wire's shape. Costs the entry's size.
 */
export function plainEntry(e: Entry): Entry {
  const fields: Record<string, Field> = {};
  for (const [name, f] of keyedEntries(e.fields)) {
    if (f.k === 'c') fields[name] = { k: 'c', by: keyedPlain(f.by) };
    else if (f.k === 's') fields[name] = { k: 's', el: Object.fromEntries(keyedEntries(f.el).map(([t, x]) => [t, plainElement(x)])) };
    else fields[name] = f;
  }
  return { ...e, fields };
}

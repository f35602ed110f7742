import type { Stamp } from '../op/types';
import { type Follower, lowerBound, type Measure, SortedMap } from './sorted-map';
import { compareStamps, stampOfTag } from './stamp';

/** Tags a list may hold and stay an array: past it an insert would copy more than a TagSet's change. */
const SMALL_TAGS = 32;

/** Tags by the stamps they name, the oldest kept per node of a TagSet. */
const TAG_STAMPS: Measure<1, Stamp> = { of: (tag) => stampOfTag(tag), older: (a, b) => compareStamps(a, b) < 0, cache: new WeakMap() };

/** The same measure turned round: its "least" is the newest stamp a tag names. */
const TAG_NEWEST: Measure<1, Stamp> = { of: (tag) => stampOfTag(tag), older: (a, b) => compareStamps(a, b) > 0, cache: new WeakMap() };

/**
 * A set element's add or remove tags past SMALL_TAGS: a persistent sorted
 * set, so that one more add of an element added 20,000 times before copies
 * a few nodes, not the list (each op's state is held until its batch
 * commits: 20,000 adds of one element in one push cost 38 s, most of it
 * collecting copies). Written by JSON as the sorted array it stands for.
 */
export class TagSet {
  private constructor(private readonly map: SortedMap<1>) {}

  /** A set of sorted, distinct tags (not checked). */
  static ofSorted(tags: readonly string[]): TagSet {
    return new TagSet(SortedMap.ofSorted(tags.map((t) => [t, 1] as const)));
  }

  get size(): number {
    return this.map.size;
  }

  has(tag: string): boolean {
    return this.map.get(tag) !== undefined;
  }

  /** The set with `tags` added; this one is unchanged. */
  with(tags: readonly string[]): TagSet {
    let map = this.map;
    for (const t of tags) map = map.set(t, 1);
    return new TagSet(map);
  }

  /** The tags of this set that `older` (a set this one was made from by with()) lacks; undefined past `limit` looked at. */
  addedSince(older: TagSet, limit: number): string[] | undefined {
    return this.map.changedSince(older.map, limit)?.map((e) => e[0]);
  }

  /** The oldest stamp a tag names (null when empty): a few paths past a set measured before. */
  oldest(): Stamp | null {
    return this.map.least(TAG_STAMPS);
  }

  /** The newest stamp a tag names (null when empty), kept in the nodes as oldest() is. */
  newest(): Stamp | null {
    return this.map.least(TAG_NEWEST);
  }

  /**
   * The set without its tags older than `reset`, visiting only the paths to
   * them: an element added 20,000 times loses the few a reset drops without
   * a walk of the 20,000. This set when none is older; a sorted array when
   * SMALL_TAGS or fewer are left.
   */
  withoutOlder(reset: Stamp): Tags {
    let map = this.map;
    this.map.visitOlder(reset, TAG_STAMPS, (tag) => { map = map.delete(tag); });
    if (map === this.map) return this;
    if (map.size > SMALL_TAGS) return new TagSet(map);
    const list = map.entries().map((e) => e[0]);
    sortedLists.add(list);
    return list;
  }

  /** The follower kept beside the set's map (SortedMap.follow): with() and withoutOlder() carry it on. */
  follow<F extends Follower<1>>(make: (tags: string[], ones: 1[]) => F): F {
    return this.map.follow(make);
  }

  /** The tags in order. */
  list(): string[] {
    return this.map.entries().map((e) => e[0]);
  }

  toJSON(): string[] {
    return this.list();
  }
}

/** An element's tags: a sorted array while small, a TagSet past that; a peer's array, in any order. */
export type Tags = readonly string[] | TagSet;

/** The tags as an array (a TagSet's in order). */
export const tagList = (t: Tags): readonly string[] => (t instanceof TagSet ? t.list() : t);

/** How many tags. */
export const tagCount = (t: Tags): number => (t instanceof TagSet ? t.size : t.length);

/**
 * Arrays built here, sorted and duplicate-free: an insert of a few tags into
 * one is a binary search and one copy. A peer's array is not taken to be
 * sorted until a union here has sorted it (isEntry does not ask).
 */
const sortedLists = new WeakSet<readonly string[]>();

/** Tags `b` into a small sorted array `a`, or undefined when the result would not be small. */
function insertSmall(a: readonly string[], b: readonly string[]): readonly string[] | undefined {
  if (a.length + b.length > SMALL_TAGS || !(a.length <= 1 || sortedLists.has(a))) return undefined;
  let out = a;
  for (const x of b) {
    const i = lowerBound(out, x);
    if (out[i] === x) continue;
    if (out === a) out = a.slice();
    (out as string[]).splice(i, 0, x);
  }
  if (out !== a) sortedLists.add(out);
  return out;
}

/**
 * The union of two tag lists, sorted and duplicate-free; `a` itself when it
 * already holds every tag of `b` and is a small array or a TagSet (a large
 * array becomes a TagSet once, so no later op costs its length again).
 */
export function unionTags(a: Tags, b: Tags): Tags {
  const add = tagList(b);
  if (a instanceof TagSet) {
    const news = add.filter((t) => !a.has(t));
    return news.length === 0 ? a : a.with(news);
  }
  const small = insertSmall(a, add);
  if (small) return small;
  const union = new Set(a);
  const before = union.size;
  for (const x of add) union.add(x);
  if (union.size === before && a.length <= SMALL_TAGS) return a;
  const sorted = [...union].sort();
  if (sorted.length > SMALL_TAGS) return TagSet.ofSorted(sorted);
  sortedLists.add(sorted);
  return sorted;
}

/** The tags kept by `keep`; `tags` itself when every one is. */
export function filterTags(tags: Tags, keep: (t: string) => boolean): Tags {
  const list = tagList(tags);
  const kept = list.filter(keep);
  if (kept.length === list.length) return tags;
  if (tags instanceof TagSet && kept.length > SMALL_TAGS) return TagSet.ofSorted(kept);
  // What a sorted list keeps is sorted.
  if (tags instanceof TagSet || sortedLists.has(tags)) sortedLists.add(kept);
  return kept;
}

/** Every add and remove tag of a set element. */
export const elementTags = (e: { add: Tags; rem: Tags }): string[] => [...tagList(e.add), ...tagList(e.rem)];

/** A lookup of the tags: a TagSet is one; includes() for a few strings, a Set past 16 (a loop of includes() is quadratic). */
export function tagLookup(tags: Tags): { has(x: string): boolean } {
  if (tags instanceof TagSet) return tags;
  return tags.length > 16 ? new Set(tags) : { has: (x) => tags.includes(x) };
}

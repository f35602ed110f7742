import { SortedMap } from '../../src/crdt';
import * as keyed from '../../src/crdt/keyed';
import * as tags from '../../src/crdt/tags';

/**
 * The entries of maps walked, copied or built while `run` runs: each walk of
 * a large map of an entry (SortedMap's entries(), toJSON(), a follower built
 * from it, a map built by ofSorted), each copy of a plain map by keyedWith,
 * each tag array a union or filter copies, and each Object.keys/values/entries
 * counts the entries it yields. Counting work, not timing it, keeps a cost
 * bound deterministic: an op that walks or copies the record it lands on
 * adds the record's size, so n such ops add n times it, far past the few
 * walks a bounded push makes. Its spies on crdt/keyed and crdt/tags need
 * the caller to mock both as plain copies of themselves (op-cost.spec.ts).
 * @example
 * const { value, touched } = await touchedBy(() => push(unit, ctx, ops));
 */
export async function touchedBy<T>(run: () => Promise<T>): Promise<{ value: T; touched: number }> {
  let touched = 0;
  const count = <A extends unknown[], R>(fn: (this: unknown, ...a: A) => R, size: (r: R, a: A) => number) =>
    function (this: unknown, ...a: A): R {
      const r = fn.apply(this, a);
      touched += size(r, a);
      return r;
    };
  const proto = SortedMap.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const entries = proto.entries;
  const toJSON = proto.toJSON;
  const follow = proto.follow;
  const ofSorted = SortedMap.ofSorted;
  const { keyedWith, keyedSize } = keyed;
  const { unionTags, filterTags } = tags;
  const spies = [
    jest.spyOn(proto, 'entries').mockImplementation(count(entries, (r) => (r as unknown[]).length)),
    jest.spyOn(proto, 'toJSON').mockImplementation(function (this: SortedMap<unknown>) {
      touched += this.size;
      return toJSON.call(this);
    }),
    jest.spyOn(proto, 'follow').mockImplementation(function (this: unknown, make: unknown) {
      return follow.call(this, (keys: string[], vals: unknown[]) => {
        touched += keys.length;
        return (make as (k: string[], v: unknown[]) => unknown)(keys, vals);
      });
    }),
    jest.spyOn(SortedMap, 'ofSorted').mockImplementation(count(ofSorted, (_r, a) => (a[0] as unknown[]).length) as typeof ofSorted),
    jest.spyOn(keyed, 'keyedWith').mockImplementation(count(keyedWith, (_r, a) => (a[0] instanceof SortedMap ? a[1].length : keyedSize(a[0])))),
    jest.spyOn(tags, 'unionTags').mockImplementation(count(unionTags, (_r, a) => (Array.isArray(a[0]) ? a[0].length : 0))),
    jest.spyOn(tags, 'filterTags').mockImplementation(count(filterTags, (_r, a) => (Array.isArray(a[0]) ? a[0].length : 0))),
    ...(['keys', 'values', 'entries'] as const).map((name) => {
      const real = Object[name] as (o: object) => unknown[];
      return jest.spyOn(Object, name).mockImplementation(count(real, (r) => r.length) as never);
    }),
  ];
  try {
    return { value: await run(), touched };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

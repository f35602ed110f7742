import type { Field } from './entry';
import { keyedEntries, keyedValues } from './keyed';
import { stampOfTag } from './stamp';
import { tagCount, TagSet } from './tags';

/**
 * A lower bound of the ts of every piece a counter or set holds (a slot, a
 * tag), for the fields made here from a field whose bound was known, or
 * walked once. A reset older than it prunes nothing, so pruneField need not
 * walk the field: 400 writes each pruning nothing of a record holding a set
 * of 100,000 walked the set each time (11 s).
 */
const bounds = new WeakMap<Field, number>();

/** The least ts a counter's slots or a set's tags hold; -Infinity for none (a prune drops what holds nothing). */
function walk(f: Field): number {
  let min = Infinity;
  if (f.k === 'c') for (const [, slot] of keyedEntries(f.by)) min = Math.min(min, slot[1]);
  else if (f.k === 's') {
    for (const e of keyedValues(f.el)) {
      if (tagCount(e.add) + tagCount(e.rem) === 0) return -Infinity;
      for (const tags of [e.add, e.rem]) {
        // A TagSet keeps its oldest stamp in its nodes: an element added 20,000 times is not walked.
        if (tags instanceof TagSet) min = Math.min(min, tags.oldest()?.[0] ?? Infinity);
        else for (const t of tags) min = Math.min(min, stampOfTag(t)[0]);
      }
    }
  }
  return min === Infinity ? -Infinity : min;
}

/** A lower bound of the ts of the field's content: a register's own, else the one kept, else walked once. */
export function oldestTs(f: Field): number {
  if (f.k === 'r') return f.s[0];
  let b = bounds.get(f);
  if (b === undefined) bounds.set(f, (b = walk(f)));
  return b;
}

/**
 * `f`, made from `from` (or new) with content no older than `ts` added or
 * replaced: its bound is `from`'s and `ts`'s least, when `from`'s is known.
 */
export function boundFrom<F extends Field>(f: F, from: Field | undefined, ts: number): F {
  if (f.k === 'r') return f;
  const b = from === undefined ? ts : from.k === 'r' ? undefined : bounds.get(from);
  if (b !== undefined) bounds.set(f, Math.min(b, ts));
  return f;
}

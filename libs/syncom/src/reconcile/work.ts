import { fingerprintSpan, type ItemSet, spanOf, splitSpan, tagsOfSpan } from './item-set';
import { compareBounds, type Key } from './keys';
import { type Bound, MODE, type Range } from './types';

/** A range the initiator still has to ask about, and how: by fingerprint or by its tags. */
export interface Work {
  lower: Key;
  upper: Bound;
  mode: typeof MODE.fingerprint | typeof MODE.tags;
}

/** What to ask about a range that differs: its tags when small, else its B parts' fingerprints. */
export function workFor(set: ItemSet, w: Omit<Work, 'mode'>, branching: number, listBelow: number): Work[] {
  const span = spanOf(set, w.lower, w.upper);
  if (span.j - span.i < listBelow) return [{ ...w, mode: MODE.tags }];
  let lower = w.lower;
  return splitSpan(set, span, branching, w.upper).map((p) => {
    const out: Work = { lower, upper: p.upper, mode: MODE.fingerprint };
    if (p.upper !== null) lower = p.upper;
    return out;
  });
}

/** A work as wire ranges: a skip up to its start when the frame ends before it, then the ask. */
export function workRanges(set: ItemSet, w: Work, end: Key): Range[] {
  const out: Range[] = [];
  if (compareBounds(w.lower, end) > 0) out.push([[w.lower[0], w.lower[1]], MODE.skip]);
  const span = spanOf(set, w.lower, w.upper);
  out.push(w.mode === MODE.tags ? [w.upper, MODE.tags, tagsOfSpan(set, span)] : [w.upper, MODE.fingerprint, fingerprintSpan(set, span)]);
  return out;
}

/** Merge two key-ordered work lists into one. */
export function mergeWork(a: readonly Work[], b: readonly Work[]): Work[] {
  const out: Work[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compareBounds(a[i].lower, b[j].lower) <= 0 ? a[i++] : b[j++]);
  return out.concat(a.slice(i), b.slice(j));
}

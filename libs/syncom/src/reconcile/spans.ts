import { fingerprintSpan, type ItemSet, type Span, splitSpan } from './item-set';
import { type Bound, type FingerprintRange, MODE } from './types';

/** A span cut into up to `parts` fingerprint ranges, the last ending at `upper`. */
export function fingerprintRanges(set: ItemSet, span: Span, parts: number, upper: Bound): FingerprintRange[] {
  return splitSpan(set, span, parts, upper).map((p) => [p.upper, MODE.fingerprint, fingerprintSpan(set, p.span)]);
}

/** How a span and a peer's tags for the same range differ. */
export interface SpanDiff {
  /** Ids of the span's items whose tag the peer does not hold. */
  mine: string[];
  /** Positions of the peer's tags the span does not hold. */
  theirs: number[];
}

/**
 * Compare a span with a peer's tags for the same range. A tag stands for the
 * whole item (ts, id, digest), so an id both hold in different states is on
 * both sides: each holds a state the other lacks, and a merge both ways
 * joins them.
 */
export function compareSpan(set: ItemSet, span: Span, tags: readonly string[]): SpanDiff {
  const mineTags = new Set<string>();
  for (let k = span.i; k < span.j; k++) mineTags.add(set.tag(k));
  const peerTags = new Set(tags);
  const mine: string[] = [];
  for (let k = span.i; k < span.j; k++) if (!peerTags.has(set.tag(k))) mine.push(set.item(k).id);
  const theirs: number[] = [];
  tags.forEach((tag, m) => { if (!mineTags.has(tag)) theirs.push(m); });
  return { mine, theirs };
}

import { CLOSE_BYTES, Frame, rangesBytes } from './frame';
import { fingerprintSpan, type ItemSet, itemsOfSpan, type Span, spanOf } from './item-set';
import { type Key, MIN_KEY } from './keys';
import type { Params } from './params';
import { compareSpan, fingerprintRanges } from './spans';
import { type Message, MODE, type Range, type ReconcileRefusal, refuse } from './types';

/** The answer to one range of the initiator's. */
function answerRange(set: ItemSet, r: Range, span: Span, p: Params): Range[] {
  const upper = r[0];
  const count = span.j - span.i;
  if (r[1] === MODE.fingerprint) {
    if (fingerprintSpan(set, span) === r[2]) return [[upper, MODE.skip]];
    return count < p.listBelow ? [[upper, MODE.items, itemsOfSpan(set, span)]] : fingerprintRanges(set, span, p.branching, upper);
  }
  if (r[1] === MODE.tags) {
    // Up to twice listBelow a diff still beats another round of fingerprints.
    if (count >= 2 * p.listBelow) return fingerprintRanges(set, span, p.branching, upper);
    const d = compareSpan(set, span, r[2]);
    return [[upper, MODE.diff, d.mine, d.theirs]];
  }
  return [[upper, MODE.skip]];
}

/**
 * Put a range's answer in the frame, or a smaller one when it is the first
 * real answer and too big: two fingerprints (a span of one item always fits,
 * see MIN_FRAME_LIMIT). False when it does not fit after others: defer.
 */
function place(frame: Frame, out: Range[], smaller: () => Range[]): boolean {
  if (frame.fits(rangesBytes(out), CLOSE_BYTES)) {
    frame.add(out);
    return true;
  }
  if (frame.busy) return false;
  frame.add(smaller());
  return true;
}

/**
 * The responder's answer to a decoded message: each range in order, until the
 * frame is full; the rest is deferred to the initiator's next message. The
 * responder keeps nothing between messages, so one set can answer any number
 * of initiators.
 */
export function respond(set: ItemSet, msg: Message, p: Params): { ok: true; next: Message } | ReconcileRefusal {
  const bad = msg.ranges.findIndex((r) => r[1] > MODE.tags);
  if (bad >= 0) return refuse(`range ${bad}: a responder is sent no items, diff or defer`);
  const frame = new Frame(p.frameLimit);
  let lower: Key = MIN_KEY;
  for (const r of msg.ranges) {
    const span = spanOf(set, lower, r[0]);
    const out = answerRange(set, r, span, p);
    const smaller = () => (span.j - span.i >= 2 ? fingerprintRanges(set, span, 2, r[0]) : out);
    if (!place(frame, out, smaller)) {
      frame.add([[null, MODE.defer]]);
      break;
    }
    if (r[0] !== null) lower = r[0];
  }
  return { ok: true, next: frame.message() };
}

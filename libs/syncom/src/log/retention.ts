import type { SegmentInfo } from './files';

/** What retention keeps: ops (at least 1000, GUAR-28) and, when set, days. */
export interface Retention {
  ops: number;
  days?: number;
}

export const DEFAULT_RETENTION_OPS = 10_000;
export const MIN_RETENTION_OPS = 1_000;
const DAY = 86_400_000;

/** Normalise the option: the default, and the 1000-op floor (GUAR-28). */
export function retentionOf(opt?: { ops?: number; days?: number }): Retention {
  const ops = Math.max(MIN_RETENTION_OPS, opt?.ops ?? DEFAULT_RETENTION_OPS);
  return opt?.days === undefined ? { ops } : { ops, days: opt.days };
}

/**
 * How many of the oldest sealed segments retention drops: by op count (keep
 * at least `ops` ops, CLK-12) or by age of their newest stamp against this
 * node's clock (CLK-11). `pinned` keeps a segment (a dialer's own unacked ops)
 * and everything after it.
 */
export function segmentsToDrop(
  segments: readonly SegmentInfo[],
  head: number,
  r: Retention,
  now: number,
  pinned: (s: SegmentInfo) => boolean = () => false,
): number {
  let n = 0;
  for (const s of segments) {
    const keptAfter = head - s.to;
    const byOps = keptAfter >= r.ops;
    const byDays = r.days !== undefined && s.maxTs < now - r.days * DAY;
    if (!(byOps || byDays) || pinned(s)) break;
    n++;
  }
  return n;
}

import { FLAG_GRANTED } from '../log/op-log';
import { shortKey } from './format';
import type { Findings } from './findings';
import { type LoggedOp, streamOf } from './verify-entries';

/**
 * Seq continuity per stream, in log order. The log takes a peer's op only
 * when it is the next of its stream (classifyOp), so within the retained log
 * each stream runs +1 at a time from its first op there (older ones may be
 * gone with retention). Two things move a stream on without an op of it: an
 * advance granted by its host (FLAG_GRANTED, its vector is logged with it),
 * and a restore from an older copy (REWOUND), which moves only this node's own
 * streams and logs nothing. So a repeat or a step back is always a fault, a
 * gap in another node's stream too, and a gap in an own stream a warning.
 */
export function checkStreams(ops: readonly LoggedOp[], ownId: string | undefined, f: Findings): void {
  const last = new Map<string, number>();
  for (const { where, op, flags, afterBreak } of ops) {
    if (afterBreak) last.clear();
    const key = streamOf(op, flags);
    const prev = last.get(key);
    if (prev !== undefined && op.seq <= prev) {
      f.fault(where, `seq ${op.seq} of stream ${shortKey(key)} repeats or goes back (the log already holds ${prev})`);
    } else if (prev !== undefined && op.seq > prev + 1) {
      const gap = `stream ${shortKey(key)} skips from ${prev} to ${op.seq}`;
      if (op.origin === ownId) f.warn(where, `${gap}: this node's own stream (a restore from an older copy moves it on)`);
      else f.fault(where, gap);
    }
    last.set(key, Math.max(prev ?? 0, op.seq));
    if (flags & FLAG_GRANTED && op.vector) {
      for (const [k, n] of Object.entries(op.vector)) if (!((last.get(k) ?? -1) >= n)) last.set(k, n);
    }
  }
}

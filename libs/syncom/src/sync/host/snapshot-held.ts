import { opStreamKey, type Vector } from '../../op/types';
import type { Replica } from '../../storage/replica';

/**
 * A snapshot's point with the ops still held here (GUAR-26) left out of it.
 * A held op is logged and counted in the vector, but no record holds it, so
 * a page cannot carry it: a dialer that adopted the vector took the op for
 * one it had, and never got it (the upgrade applies it here alone). So each
 * stream with an op that waits is served at the seq before its first one,
 * and the feed resumes before the first such op: it delivers the held ops,
 * for the dialer to apply or hold, and the rest again, which folds in as
 * no-ops (docs/replication.md, Bootstrap).
 */
export function heldBack(replica: Replica, vector: Vector, head: number): { vector: Vector; eventId: string } {
  // Read only on a node holding ops: one bootstrap's first page, like its list of ids, costs the log once.
  if (!replica.holdsAny) return { vector, eventId: replica.eventId(head) };
  let first: number | undefined;
  for (const e of replica.read(replica.floor)) {
    if (e.pos > head) break;
    const key = opStreamKey(e.op);
    if (vector[key] === undefined || replica.heldFor(e) === undefined) continue;
    first ??= e.pos;
    if (e.op.seq <= vector[key]) vector[key] = e.op.seq - 1;
  }
  for (const [key, seq] of Object.entries(vector)) if (seq === 0) delete vector[key];
  return { vector, eventId: replica.eventId(first === undefined ? head : first - 1) };
}

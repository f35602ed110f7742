import { opStreamKey, type Vector } from '../../op/types';
import type { Replica } from '../../storage/replica';

/** A logged op that waits (held, GUAR-26): its position, its stream's key and its seq. */
interface Waiting {
  pos: number;
  key: string;
  seq: number;
}

/** Per replica, the ops that wait among those logged up to `to`. */
const scans = new WeakMap<Replica, { to: number; waiting: Waiting[] }>();

/**
 * The logged ops up to `head` that wait, in log order. The log is read once
 * per process and then only past what was read: each snapshot's and each
 * reconciliation's start read every retained entry, so one held op (any
 * token holder's op of a newer schema version) made every such start cost
 * the whole log. Whether an entry waits is settled when it is logged (its
 * stream's holds are noted before its append), so what was read stands; one
 * a purge scrubbed since is still served from before it, which folds in as
 * no-ops.
 */
function waitingUpTo(replica: Replica, head: number): Waiting[] {
  const floor = replica.floor;
  let scan = scans.get(replica);
  if (!scan) scans.set(replica, (scan = { to: floor, waiting: [] }));
  if (scan.waiting.length > 0 && scan.waiting[0].pos <= floor) scan.waiting = scan.waiting.filter((w) => w.pos > floor);
  scan.to = Math.max(scan.to, floor);
  if (head > scan.to) {
    for (const e of replica.read(scan.to, head - scan.to)) {
      if (e.pos > head) break;
      if (replica.heldFor(e) !== undefined) scan.waiting.push({ pos: e.pos, key: opStreamKey(e.op), seq: e.op.seq });
    }
    scan.to = head;
  }
  return scan.waiting;
}

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
  // Read only on a node holding ops.
  if (!replica.holdsAny) return { vector, eventId: replica.eventId(head) };
  let first: number | undefined;
  for (const w of waitingUpTo(replica, head)) {
    if (w.pos > head) break;
    if (vector[w.key] === undefined) continue;
    first ??= w.pos;
    if (w.seq <= vector[w.key]) vector[w.key] = w.seq - 1;
  }
  for (const [key, seq] of Object.entries(vector)) if (seq === 0) delete vector[key];
  return { vector, eventId: replica.eventId(first === undefined ? head : first - 1) };
}

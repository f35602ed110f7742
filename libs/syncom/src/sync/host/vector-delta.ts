import { formatEventId, parseEventId } from '../../log/event-id';
import { FLAG_GRANTED } from '../../log/op-log';
import { FLAG_SEALED } from '../../op/pack';
import { opStreamKey, type Vector } from '../../op/types';
import type { Replica } from '../../storage/replica';
import { inServed, keyScope, servedCount, servedVector } from '../protocol/scopes';

/**
 * The log entries a hello answer walks, at least, to send only the vector
 * entries changed since the dialer's last hello; past them and past one
 * entry per stream of the vector the whole vector goes, which costs no more
 * than the walk would (a walk of N entries costs less than the JSON of N
 * vector entries, and sends at most as many).
 */
export const MAX_DELTA_ENTRIES = 8192;

/** The vector a hello answers with: whole, or (`since` set) only what changed after that mark. */
export interface VectorAnswer {
  vector: Vector;
  /** What a later hello may name as `vectorSince`: `<nonce>.<head>` of this answer, shaped as an event id. */
  mark: string;
  /** The mark the delta is against, when `vector` holds only what changed after it. */
  since?: string;
}

/**
 * The host's vector for a hello of `scopes` that named `since` (the mark of
 * an earlier answer of this process): the entries of the streams that log
 * entries after that mark touched, at their current seqs, when every such
 * entry is still in memory; else the whole vector. A dialer that kept the
 * earlier answer adds these to it and holds the host's vector as a whole
 * answer would give it: each seq only grows, and only through a log entry,
 * or by a raise of an own stream, which renews the nonce
 * (Replica.vectorNonce). Either way only the streams of the hello's scopes
 * (and the global ones) go, as a snapshot's vector: the others' origins and
 * scope names are not the peer's to read, and it pushes nothing of them.
 */
export function vectorAnswer(replica: Replica, since: string | undefined, scopes: readonly string[]): VectorAnswer {
  const head = replica.head;
  const whole = replica.vector;
  const nonce = replica.vectorNonce;
  const mark = formatEventId(nonce, head);
  const every = scopes.includes('*');
  const all = (): VectorAnswer => ({ vector: every ? (whole as Vector) : servedVector(whole, scopes), mark });
  const at = parseEventId(since);
  // Only a mark of this nonce names a point of this history.
  const from = at?.epoch === nonce ? at.seq : undefined;
  if (from === undefined || from < replica.floor || from > head) return all();
  // Past 8,192 entries, the walk is taken only when it is shorter than the whole answer (the served streams, counted by scope).
  if (head - from > MAX_DELTA_ENTRIES && head - from > servedCount(whole, scopes)) return all();
  const entries = replica.read(from, head - from);
  // A hole (an entry not in memory) could hide a stream that moved: the whole vector then.
  if (entries.length !== head - from) return all();
  const vector: Vector = {};
  const take = (k: string) => {
    if (whole[k] !== undefined && (every || inServed(keyScope(k), scopes))) vector[k] = whole[k];
  };
  for (const e of entries) {
    if (e.flags & FLAG_SEALED) continue;
    take(opStreamKey(e.op));
    if (e.flags & FLAG_GRANTED && e.op.vector) for (const k in e.op.vector) take(k);
  }
  return { vector, mark, since };
}

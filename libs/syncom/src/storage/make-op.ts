import { SyncomError } from '../errors';
import { addDigest } from '../op';
import { asInvalid } from './local-ops';
import { type Op, streamKey, type Vector } from '../op/types';
import type { Clock } from './clock';
import type { Committer } from './commit';
import type { NodeKeys } from './keys';
import type { OpBody } from './local-ops';
import type { OpenOptions, WriteOptions } from './options';
import { newOwnOp } from '../op/made';
import type { Schema } from '../schema';

/** What stamping, sequencing and digesting an own op reads. */
export interface OpMaking {
  options: OpenOptions;
  keys: NodeKeys;
  clock: Clock;
  committer: Committer;
  schema?: Schema;
}

/** The body of an own op, with the fields only the sync layer's merge and advance ops carry. */
export type OwnOpBody = OpBody & {
  from?: string;
  vector?: Vector;
  /** Digested and signed after its append, in the background (a joined snapshot page's merges, see LateSigns). */
  late?: boolean;
};

/**
 * The highest seq an own op may carry: the largest safe integer. Past it
 * n + 1 === n, so two ops would share one seq, which every peer takes as
 * one op and a malformed one (op/check.ts wants a safe integer).
 */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * The op's actor: the write's own, else open()'s (a function asked per write).
 * Checked here as every peer checks it (op/check.ts: a string): a number, or
 * whatever an actor function gave back, was logged and acknowledged, then
 * refused as malformed by every peer (this node's stream stopped there for
 * good) and read back at the next open as a damaged entry, a hole in the log.
 * @throws SyncomError INVALID_ARGUMENT for an actor that is no string, or an actor function that throws.
 */
function actorFor(options: OpenOptions, w?: WriteOptions): string | undefined {
  const a = options.actor;
  const actor: unknown = w?.actor !== undefined ? w.actor : typeof a === 'function' ? asInvalid("open()'s actor function threw", () => a()) : a;
  if (actor !== undefined && typeof actor !== 'string') throw new SyncomError('INVALID_ARGUMENT', `an actor is a string, not ${actor === null ? 'null' : typeof actor}`);
  return actor;
}

/**
 * Stamp (Clocks), sequence (per origin, scope and, for bootstrap ops, the
 * node joined from; a sealed op in the sealed stream, GUAR-19) and digest
 * (Signatures) an op of this node. The sig itself is made by the committer,
 * off the main thread, before the append.
 * @throws SyncomError OP_INVALID when the stream has no seq left (it stands at MAX_SEQ).
 */
export function makeOwnOp(m: OpMaking, body: OwnOpBody, scope: string, w?: WriteOptions): Op {
  const { committer, clock, schema, keys } = m;
  // Before anything is stamped: a refused actor leaves no trace.
  const actor = actorFor(m.options, w);
  const key = w?.sealed ? 'sealed' : streamKey(keys.id, scope, body.from);
  const seq = (w?.sealed ? committer.sealedSeq : (committer.pvec[key] ?? 0)) + 1;
  // Past MAX_SEQ the op would repeat a seq this node already signed: a fork that no peer takes, not a write.
  if (!(seq <= MAX_SEQ)) {
    throw new SyncomError('OP_INVALID', `this node's stream ${key} stands at ${seq - 1} and has no seq left: the op is refused (this store can write no more in that stream)`, { stream: key });
  }
  // Made on the prototype that marks it as this node's (see op/made): the fields in the order a literal gave them.
  const op = newOwnOp();
  op.origin = keys.id;
  op.seq = seq;
  op.ts = clock.next();
  op.type = body.type;
  op.id = body.id;
  op.scope = scope;
  if (body.from !== undefined) op.from = body.from;
  if (body.data !== undefined) op.data = body.data;
  if (body.key !== undefined) op.key = body.key;
  if (body.value !== undefined) op.value = body.value;
  if (body.vector !== undefined) op.vector = body.vector;
  if (schema && body.type !== 'merge' && body.type !== 'advance') op.v = schema.version;
  if (actor !== undefined) op.actor = actor;
  return m.options.sync?.signatures === false || body.late ? op : addDigest(op);
}

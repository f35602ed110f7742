import type { Op, Vector } from '../op/types';
import { opStreamKey } from '../op/types';

/**
 * Raise `into` (in place) to every entry of `from`. A vector grows with every
 * origin: a bootstrap of many scopes logs an advance per scope, and a copy of
 * the whole vector per advance made the join cost scopes times origins.
 */
export function raiseVector(into: Vector, from: Vector): void {
  for (const k in from) if (!(into[k] >= from[k])) into[k] = from[k];
}

/** The entries of `b` that are ahead of `a`. */
export function vectorAhead(a: Vector, b: Vector): Vector {
  const out: Vector = {};
  for (const [k, n] of Object.entries(b)) if (!(a[k] >= n)) out[k] = n;
  return out;
}

/**
 * Where an op stands against a vector: the next of its stream, already had, or skipping ahead.
 *
 * Equivocation (an origin signing two different ops with one seq) is judged
 * by seq alone: the first op of a seq a node takes stands and any other is a
 * duplicate, counted as such and neither logged nor relayed. Two nodes that
 * took different first ops keep them; detecting that (comparing digests per
 * seq) is not built. Only the key's holder can equivocate, so it is the
 * origin's fault, and it cannot reach an honest origin's stream.
 */
export function classifyOp(vector: Vector, op: Op): 'next' | 'duplicate' | 'gap' {
  const have = vector[opStreamKey(op)] ?? 0;
  if (op.seq <= have) return 'duplicate';
  return op.seq === have + 1 ? 'next' : 'gap';
}

/** Move a vector (in place) past an op. */
export function advanceVector(vector: Vector, op: Op): void {
  const key = opStreamKey(op);
  if (!(vector[key] >= op.seq)) vector[key] = op.seq;
}

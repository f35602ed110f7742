import type { Op, Vector } from '../op/types';
import { keyScope, opStreamKey } from '../op/types';

/** A vector's keys filed by their scope (keyScope), and how many it holds: see vectorKeys. */
export interface VectorKeys {
  readonly byScope: ReadonlyMap<string, readonly string[]>;
  readonly size: number;
}

const keyIndexes = new WeakMap<object, { byScope: Map<string, string[]>; size: number }>();

function file(ix: { byScope: Map<string, string[]>; size: number }, key: string): void {
  const scope = keyScope(key);
  const list = ix.byScope.get(scope);
  if (list) list.push(key);
  else ix.byScope.set(scope, [key]);
  ix.size++;
}

/**
 * The keys of a vector by scope, built at the first ask (one pass) and kept
 * up to date from then on by every write of a new key through setVectorKey
 * (advanceVector, raiseVector, the committer's stream keys): a host answering
 * a peer of one scope reads that scope's streams and the global ones, not
 * every stream of every scope it holds (a vector is never shrunk in place).
 */
export function vectorKeys(vector: Readonly<Vector>): VectorKeys {
  let ix = keyIndexes.get(vector);
  if (!ix) {
    ix = { byScope: new Map(), size: 0 };
    for (const k of Object.keys(vector)) file(ix, k);
    keyIndexes.set(vector, ix);
  }
  return ix;
}

/** Set one entry of a vector (in place), filing its key when it is new and the vector's keys are indexed. */
export function setVectorKey(vector: Vector, key: string, seq: number): void {
  // A key already held has a number (a new one reads undefined, or an Object.prototype member).
  if (typeof vector[key] !== 'number' && !Object.hasOwn(vector, key)) {
    const ix = keyIndexes.get(vector);
    if (ix) file(ix, key);
  }
  vector[key] = seq;
}

/**
 * Raise `into` (in place) to every entry of `from`. A vector grows with every
 * origin: a bootstrap of many scopes logs an advance per scope, and a copy of
 * the whole vector per advance made the join cost scopes times origins.
 */
export function raiseVector(into: Vector, from: Vector): void {
  for (const k in from) if (!(into[k] >= from[k])) setVectorKey(into, k, from[k]);
}

/**
 * Note in a push answer's `touched` the stream of a page's op: one it queued,
 * or a duplicate the committed vector (`cvec`) holds. The duplicates count after a lost answer,
 * or a page a rate stopped part-way: the ops sent again are its duplicates,
 * and the dialer's copy of the host's vector moves by them. Returns true for
 * a duplicate of an op queued (`pvec`) and not logged yet: it is noted once logged.
 */
export function noteTouched(touched: Vector, op: Op, queued: boolean, v: { cvec: Vector; pvec: Vector }): boolean {
  const k = opStreamKey(op);
  const logged = (v.cvec[k] ?? 0) >= op.seq;
  if ((queued || logged) && (touched[k] ?? 0) < op.seq) touched[k] = op.seq;
  return !queued && !logged && (v.pvec[k] ?? 0) >= op.seq;
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
  if (!(vector[key] >= op.seq)) setVectorKey(vector, key, op.seq);
}

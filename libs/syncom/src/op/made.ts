import type { Op } from '../op/types';

/**
 * The ops this node made (Storage.makeOp), by identity. The commit pipeline
 * signs only these: a peer's op never is, whatever origin it claims, so no
 * path through the pipeline can turn a pushed op into one signed with this
 * node's key (DESIGN: a node signs only ops it made).
 */
const made = new WeakSet<Op>();

/** Record `op` as made here; returns it. */
export function markMade(op: Op): Op {
  made.add(op);
  return op;
}

/** Whether this process made `op` as an op of its own node. */
export function isMadeHere(op: Op): boolean {
  return made.has(op);
}

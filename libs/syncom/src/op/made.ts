import type { Op } from './types';

/** The mark, reachable only from this module: no value parsed from JSON or built elsewhere can name it. */
const MADE = Symbol('syncom.madeHere');

/**
 * The prototype of the ops this node made (Storage.makeOp): the mark lives
 * on it, not on each op, so an op carries no own property more (JSON, the
 * packed form, spreads and deep equality see the fields alone). The commit
 * pipeline signs only these: a peer's op, parsed from JSON or copied field by
 * field (checkShape, which takes a marked op as a plain one and copies it
 * unmarked), never is, whatever origin it claims, so no path through the pipeline can turn a pushed op into one
 * signed with this node's key (DESIGN: a node signs only ops it made).
 *
 * A module-wide WeakSet of the ops did the same by identity: a bootstrap's
 * 100k merge ops made it grow by 100k entries and each GC walk them, up to a
 * tenth of the bootstrap by the second one in a process.
 */
const MADE_PROTO: object = Object.create(Object.prototype, { [MADE]: { value: true } }) as object;

/** A fresh op object marked as made here, its fields to be set by the caller (makeOwnOp). */
export function newOwnOp(): Op {
  return Object.create(MADE_PROTO) as Op;
}

/** Mark an op that exists already (read back from this node's own log) as made here; returns it. Rare: it changes the op's prototype. */
export function markMade(op: Op): Op {
  if (!isMadeHere(op)) Object.setPrototypeOf(op, MADE_PROTO);
  return op;
}

/** Whether this process made `op` as an op of its own node (false for anything not an object). */
export function isMadeHere(op: Op): boolean {
  return typeof op === 'object' && op !== null && (op as unknown as { [MADE]?: boolean })[MADE] === true;
}

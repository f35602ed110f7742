import { internals } from './internals';
import { isHidden } from '../crdt';
import type { OpType } from '../op/types';
import type { Storage } from '../storage/storage';
import type { SimRandom } from './sim-random';

/** What a simulated write asks for; the node's state decides the call it becomes (see issueWrite). */
export interface SimWrite {
  kind: 'set' | 'update' | 'delete' | 'add' | 'remove' | 'inc';
  id: string;
  /** A register value, a set element or an increment, from a small range so that values collide. */
  value: number;
  field: 'a' | 'b';
  /** Written sealed (the sealed option): the node's own record s<node>. */
  sealed?: boolean;
}

/** The key space: few records, so most writes conflict with another node's. */
export interface KeySpace {
  /** Records r0.. that are written, updated, deleted, added to and removed from. */
  records: number;
  /**
   * Records c0.. holding the counter n: created once before the run and never
   * reset, since a counter incremented around a concurrent reset does not
   * converge (RESET-6). Fields keep one kind each (RESET-10): a and b are
   * registers, tags a set, n a counter.
   */
  counters: number;
}

/** Draw one write. */
export function drawWrite(rng: SimRandom, keys: KeySpace): SimWrite {
  const value = rng.int(5);
  const field = rng.chance(0.5) ? 'a' : 'b';
  const r = rng.next();
  if (r < 0.2) return { kind: 'inc', id: `c${rng.int(keys.counters)}`, value: value + 1, field };
  if (r < 0.26) return { kind: rng.pick(['update', 'add', 'remove'] as const), id: `c${rng.int(keys.counters)}`, value, field };
  const id = `r${rng.int(keys.records)}`;
  const kinds = ['set', 'set', 'update', 'update', 'update', 'delete', 'add', 'add', 'remove', 'remove'] as const;
  return { kind: rng.pick(kinds), id, value, field };
}

/** The call a write became, and its promise. */
export interface Issued {
  /**
   * What was called: the write's kind, or 'set' when the record it needs is
   * not there; 'skip' for a counter record the node does not hold (writing it
   * whole would be a reset, RESET-6).
   */
  call: SimWrite['kind'] | 'skip';
  /** The op's type and seq when the call made one (a remove of an element never seen makes none, KIND-20); sealed: a seq of the sealed stream. */
  op?: { type: OpType; seq: number; sealed?: true };
  done: Promise<void>;
}

const OP_TYPES: Record<Issued['call'], OpType> = { set: 'write', update: 'set', delete: 'delete', add: 'add', remove: 'remove', inc: 'inc', skip: 'set' };

function call(s: Storage, w: SimWrite, exists: boolean): { call: Issued['call']; done: Promise<void> } {
  const fields = { [w.field]: w.value };
  if (!exists && w.id.startsWith('c')) return { call: 'skip', done: Promise.resolve() };
  if (w.kind === 'inc') return { call: 'inc', done: s.inc(w.id, 'n', w.value) };
  if (w.kind === 'remove') return { call: 'remove', done: s.remove(w.id, 'tags', [w.value]) };
  if (w.kind === 'delete') return { call: 'delete', done: s.delete(w.id) };
  if (w.kind === 'set' || !exists) return { call: 'set', done: s.set(w.id, w.value % 2 ? fields : { a: w.value, b: w.value }, w.sealed ? { sealed: true } : undefined) };
  if (w.kind === 'update') return { call: 'update', done: s.update(w.id, fields) };
  return { call: 'add', done: s.add(w.id, 'tags', [w.value]) };
}

/**
 * Issue a write without awaiting it (writes issued together share a log
 * append). A record the write needs and the node does not hold is written
 * whole instead; the choice reads the node's state as of its queued writes.
 */
export function issueWrite(s: Storage, w: SimWrite): Issued {
  const { committer } = internals(s);
  const entry = committer.current(w.id);
  const before = committer.pvec[s.id] ?? 0;
  const sealedBefore = committer.sealedSeq;
  const made = call(s, w, !!entry && !isHidden(entry));
  const after = committer.pvec[s.id] ?? 0;
  const issued: Issued = { call: made.call, done: made.done };
  if (after > before) issued.op = { type: OP_TYPES[made.call], seq: after };
  else if (committer.sealedSeq > sealedBefore) issued.op = { type: OP_TYPES[made.call], seq: committer.sealedSeq, sealed: true };
  return issued;
}


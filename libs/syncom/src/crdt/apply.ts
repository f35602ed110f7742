import type { Op, Stamp } from '../op/types';
import type { Entry, Field, SetElement } from './entry';
import { emptyEntry, makeEntry, purgedEntry } from './entry';
import { counterSlot, finiteSum, keepTags } from './fields';
import { type Keyed, keyedGet, keyedWith } from './keyed';
import { heldEntry, joinEntries, prunedAfter, prunedFields } from './merge';
import { boundFrom } from './oldest';
import { compareStamps, isOlder, maxStamp, stampOfTag, tagOf } from './stamp';
import { tagCount, tagList, unionTags } from './tags';
import { compareMarks, compareValues } from './ties';

/** What applying one op did to an entry. */
export interface ApplyResult {
  entry: Entry;
  /** Fields of the op refused for a kind clash (OP_REFUSED); the rest applied. */
  refused: string[];
}

type FieldOp = (f: Field | undefined, op: Op, stamp: Stamp) => Field | undefined | 'refuse';

/** The fields with the op's registers written; `refused` gets the names another kind holds. */
function writeRegisters(fields: Keyed<Field>, data: Record<string, unknown>, stamp: Stamp, refused: string[]): Keyed<Field> {
  const changes: [string, Field][] = [];
  for (const [name, val] of Object.entries(data)) {
    const f = keyedGet(fields, name);
    if (f && f.k !== 'r') refused.push(name);
    // An equal stamp (a peer signing two writes alike) is settled by value, as joinField settles it.
    else if (!f || (compareStamps(f.s, stamp) || compareValues(f.val, val, { a: f })) <= 0) changes.push([name, { k: 'r', s: stamp, val }]);
  }
  return keyedWith(fields, changes);
}

// One slot per stream (origin and declared scope), not per origin: a stream's ops arrive in
// seq order, hence in ts order, while one origin's incs in two scopes (a record that moved)
// arrive in whatever order the two streams allow; a slot per origin dropped the older one.
const incField: FieldOp = (f, op, stamp) => {
  if (f && f.k !== 'c') return 'refuse';
  const key = counterSlot(op.origin, op.scope);
  const slot = f && keyedGet(f.by, key);
  if (slot && slot[1] >= stamp[0]) return f;
  return boundFrom({ k: 'c', by: keyedWith(f?.by ?? {}, [[key, [finiteSum((slot?.[0] ?? 0) + (op.value as number)), stamp[0]]]]) }, f, stamp[0]);
};

// An op's elements, each once: the last change of a text must see the ones before it.
const addField: FieldOp = (f, op, stamp) => {
  if (f && f.k !== 's') return 'refuse';
  const el = f?.el ?? {};
  const tag = [tagOf(stamp)];
  const changes = new Map<string, SetElement>();
  for (const x of op.value as unknown[]) {
    const text = JSON.stringify(x);
    const e = changes.get(text) ?? keyedGet(el, text);
    changes.set(text, e ? { add: unionTags(e.add, tag), rem: e.rem } : { add: tag, rem: [] });
  }
  return boundFrom({ k: 's', el: keyedWith(el, [...changes]) }, f, stamp[0]);
};

function removeField(reset: Stamp | undefined): FieldOp {
  return (f, op, stamp) => {
    if (f && f.k !== 's') return 'refuse';
    const el = f?.el ?? {};
    const changes = new Map<string, SetElement>();
    let oldest = Infinity;
    for (const [x, named] of op.value as [unknown, string[]][]) {
      const text = JSON.stringify(x);
      // A remove names add tags its node saw, all older than its own stamp: a newer one (a peer's
      // making) would stand against a reset stamped after the remove on one node and not on another.
      const tags = named.some((t) => compareStamps(stampOfTag(t), stamp) >= 0) ? named.filter((t) => compareStamps(stampOfTag(t), stamp) < 0) : named;
      const rem = reset ? keepTags(tags, reset) : tags;
      if (tagCount(rem) === 0) continue;
      for (const t of tagList(rem)) oldest = Math.min(oldest, stampOfTag(t)[0]);
      const e = changes.get(text) ?? keyedGet(el, text);
      changes.set(text, e ? { add: e.add, rem: unionTags(e.rem, rem) } : { add: [], rem: unionTags([], rem) });
    }
    return changes.size ? boundFrom({ k: 's', el: keyedWith(el, [...changes]) }, f, oldest) : f;
  };
}

function applyField(e: Entry, op: Op, stamp: Stamp, fn: FieldOp): ApplyResult {
  const key = op.key as string;
  const next = fn(keyedGet(e.fields, key), op, stamp);
  if (next === 'refuse') return { entry: e, refused: [key] };
  const fields = next ? keyedWith(e.fields, [[key, next]]) : e.fields;
  return { entry: makeEntry(e.id, e.latest, fields, e), refused: [] };
}

function applyReset(e: Entry, op: Op, stamp: Stamp): ApplyResult {
  if (isOlder(stamp, e.reset)) return { entry: e, refused: [] };
  const kept = prunedFields(e.fields, stamp);
  const isDelete = op.type === 'delete';
  const refused: string[] = [];
  const fields = isDelete ? kept : writeRegisters(kept, op.data ?? {}, stamp, refused);
  // A delete replaces the record wholesale as a write does, so it sets meta.v too: keeping the
  // previous v made it depend on whether an older write arrived before or after the delete.
  const mine = { reset: stamp, del: isDelete, v: op.v };
  // A reset stamped as the one held (a peer signing two alike) keeps the greater marks, as joinEntries does.
  const tiedBelow = e.reset !== undefined && compareStamps(e.reset, stamp) === 0 && compareMarks(mine, e) < 0;
  return { entry: makeEntry(e.id, e.latest, fields, tiedBelow ? e : mine), refused };
}

function applySet(e: Entry, op: Op, stamp: Stamp): ApplyResult {
  if (isOlder(stamp, e.reset)) return { entry: e, refused: [] };
  const refused: string[] = [];
  const fields = writeRegisters(e.fields, op.data ?? {}, stamp, refused);
  return { entry: makeEntry(e.id, e.latest, fields, e), refused };
}

function dispatch(e: Entry, op: Op, stamp: Stamp): ApplyResult {
  switch (op.type) {
    case 'write':
    case 'delete': return applyReset(e, op, stamp);
    case 'set': return applySet(e, op, stamp);
    case 'inc': return isOlder(stamp, e.reset) ? { entry: e, refused: [] } : applyField(e, op, stamp, incField);
    case 'add': return isOlder(stamp, e.reset) ? { entry: e, refused: [] } : applyField(e, op, stamp, addField);
    case 'remove': return isOlder(stamp, e.reset) ? { entry: e, refused: [] } : applyField(e, op, stamp, removeField(e.reset));
    default: return { entry: e, refused: [] };
  }
}

/**
 * Apply one op to a record's entry (or to nothing, for an id not seen yet).
 * Pure: returns a new entry. A purge wins at any stamp (OPS-9) and leaves
 * the purged entry of the newest purge marker; a purged entry takes nothing
 * else (OPS-10), a merge raising its marker at most; a merge joins the entry
 * it carries; an advance does not touch records.
 */
export function applyOp(entry: Entry | undefined, op: Op): ApplyResult {
  const stamp: Stamp = [op.ts, op.origin];
  if (op.type === 'advance') return { entry: entry ?? emptyEntry(op.id, stamp), refused: [] };
  if (op.type === 'merge') {
    const raw = op.data as unknown as Entry;
    const joined = entry ? joinEntries(entry, raw) : heldEntry(raw);
    return { entry: joined, refused: [] };
  }
  if (op.type === 'purge') return { entry: purgedEntry(op.id, maxStamp(entry?.purged, stamp) as Stamp), refused: [] };
  const base = entry ?? emptyEntry(op.id, stamp);
  if (base.purged) return { entry: base, refused: [] };
  const r = dispatch(base, op, stamp);
  const latest = maxStamp(r.entry.latest, stamp) as Stamp;
  const e = r.entry;
  // An op adds nothing older than the reset it lands on: what was pruned stays so.
  return { entry: prunedAfter(entry, latest === e.latest ? e : makeEntry(e.id, latest, e.fields, e)), refused: r.refused };
}

import type { Stamp } from '../op/types';
import type { Entry, Field } from './entry';
import { type Keyed, keyedEntries, keyedGet, keyedOf, keyedSize, keyedWith } from './keyed';
import { joinField, pruneField } from './fields';
import { SortedMap } from './sorted-map';
import { compareStamps, maxStamp } from './stamp';

/** Every field pruned to what is not older than `reset`; the same map when nothing was. */
function prunedFields(fields: Keyed<Field>, reset: Stamp | undefined): Keyed<Field> {
  if (!reset) return fields;
  const out: [string, Field][] = [];
  let same = true;
  for (const [name, f] of keyedEntries(fields)) {
    const kept = pruneField(f, reset);
    if (kept !== f) same = false;
    if (kept) out.push([name, kept]);
  }
  return same ? fields : keyedOf(out);
}

/**
 * `large` and `small` joined field by field, pruned to `reset`. A large map
 * held here (a sorted map: made by this node's joins and applies, each
 * pruned to its entry's reset) with that reset already is not walked: only
 * the small side is pruned, then joined in (pruning and joining commute), so
 * a merge op of a few fields into a record of 100,000 costs a few.
 */
function joinAllFields(large: Entry, small: Entry, reset: Stamp | undefined): Keyed<Field> {
  const pruned = large.fields instanceof SortedMap && (reset === undefined || (large.reset !== undefined && compareStamps(large.reset, reset) === 0));
  const base = pruned ? large.fields : prunedFields(large.fields, reset);
  const changes: [string, Field][] = [];
  for (const [name, f] of keyedEntries(small.fields)) {
    const kept = reset ? pruneField(f, reset) : f;
    if (!kept) continue;
    const mine = keyedGet(base, name);
    const joined = mine ? joinField(mine, kept) : kept;
    if (joined !== mine) changes.push([name, joined]);
  }
  return keyedWith(base, changes);
}

/**
 * Join two merge states of one record (mergeEntry): what a snapshot page's
 * merge op does. Commutative, associative and idempotent, except for the
 * documented kind clash (RESET-10).
 */
export function joinEntries(a: Entry, b: Entry): Entry {
  const latest = maxStamp(a.latest, b.latest) as Stamp;
  const purged = maxStamp(a.purged, b.purged);
  if (purged) return { id: a.id, latest, purged, fields: {} };
  const newer = !b.reset || (a.reset && compareStamps(a.reset, b.reset) >= 0) ? a : b;
  const [small, large] = keyedSize(a.fields) <= keyedSize(b.fields) ? [a, b] : [b, a];
  const out: Entry = { id: a.id, latest, fields: joinAllFields(large, small, newer.reset) };
  if (newer.reset) out.reset = newer.reset;
  if (newer.del) out.del = true;
  if (newer.v !== undefined) out.v = newer.v;
  return out;
}

/**
 * An entry from outside (a peer's merge op or page, a record file) as this
 * node holds it: its fields pruned to its own reset, as every join and apply
 * here leaves them. A peer may send content its reset hides: held as sent, it
 * read as live here and not on a node that joined it into a record it had.
 */
export function heldEntry(raw: Entry): Entry {
  const fields = prunedFields(raw.fields, raw.reset);
  return fields === raw.fields ? raw : { ...raw, fields };
}

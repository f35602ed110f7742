import type { Stamp } from '../op/types';
import { type Entry, type Field, makeEntry, purgedEntry } from './entry';
import { type Keyed, keyedEntries, keyedGet, keyedOf, keyedSize, keyedWith } from './keyed';
import { SortedMap } from './sorted-map';
import { joinField, pruneField, pruneSortedFields } from './fields';
import { compareStamps, maxStamp } from './stamp';
import { compareMarks } from './ties';

/**
 * Entries of many fields (a sorted map of them) this module and applyOp
 * made, whose every field holds nothing older than the entry's reset (joins
 * prune, heldEntry prunes, an op adds nothing older than the reset it lands
 * on). A join need not walk such an entry's fields; a peer's entry, or a
 * literal, is walked. An entry of a few fields is walked in any case, each
 * field's prune costing a look at its content bound (oldest.ts): marking
 * every entry cost a bootstrap of 100k records about 8%.
 */
const pruned = new WeakSet<Entry>();

const mark = (e: Entry): Entry => (e.fields instanceof SortedMap && pruned.add(e), e);

/** Mark `after` as pruned when the entry it was made from was (or there was none). */
export function prunedAfter(before: Entry | undefined, after: Entry): Entry {
  if (after.fields instanceof SortedMap && (!before || pruned.has(before))) pruned.add(after);
  return after;
}

/** Every field pruned to what is not older than `reset`; the same map when nothing was. */
export function prunedFields(fields: Keyed<Field>, reset: Stamp | undefined): Keyed<Field> {
  if (!reset) return fields;
  if (fields instanceof SortedMap) return pruneSortedFields(fields, reset);
  const all = keyedEntries(fields);
  // Most entries have nothing to prune (a peer's page, a record file): no copy is made for them.
  const at = all.findIndex(([, f]) => pruneField(f, reset) !== f);
  if (at < 0) return fields;
  const out: [string, Field][] = all.slice(0, at);
  for (const [name, f] of all.slice(at)) {
    const kept = pruneField(f, reset);
    if (kept) out.push([name, kept]);
  }
  return keyedOf(out);
}

/**
 * `large` and `small` joined field by field, pruned to `reset`. A large
 * entry pruned already (see `pruned`) to that reset is not walked: only the
 * small side is pruned, then joined in (pruning and joining commute), so a
 * merge op of a few fields or elements into a record of 100,000 costs a few.
 */
function joinAllFields(large: Entry, small: Entry, reset: Stamp | undefined): Keyed<Field> {
  const walk = !pruned.has(large) || (reset !== undefined && (large.reset === undefined || compareStamps(large.reset, reset) !== 0));
  const base = walk ? prunedFields(large.fields, reset) : large.fields;
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
 * The side whose reset wins (its stamp, then its marks for a tie), or none
 * when neither has one. Marks without a reset mean nothing (an honest entry
 * never holds them): a peer's `{ fields: {}, v: 7 }` was kept by whichever
 * side an argument order put first, and two nodes differed for good.
 */
function newerReset(a: Entry, b: Entry): Entry | undefined {
  if (!a.reset) return b.reset ? b : undefined;
  if (!b.reset) return a;
  return (compareStamps(a.reset, b.reset) || compareMarks(a, b)) >= 0 ? a : b;
}

/**
 * Join two merge states of one record (mergeEntry): what a snapshot page's
 * merge op does. Commutative, associative and idempotent, except for the
 * documented kind clash (RESET-10). A purge on either side wins (OPS-9):
 * the join is the purged entry of the newer marker, whatever else either
 * side held.
 */
export function joinEntries(a: Entry, b: Entry): Entry {
  const purged = maxStamp(a.purged, b.purged);
  if (purged) return purgedEntry(a.id, purged);
  const latest = maxStamp(a.latest, b.latest) as Stamp;
  const newer = newerReset(a, b);
  const [small, large] = keyedSize(a.fields) <= keyedSize(b.fields) ? [a, b] : [b, a];
  return mark(makeEntry(a.id, latest, joinAllFields(large, small, newer?.reset), newer ?? {}));
}

/**
 * An entry from outside (a peer's merge op or page, a record file) as this
 * node holds it, as every join and apply here would leave it: its fields
 * pruned to its own reset, only the members an entry has, marks only with
 * a reset, and a purged one reduced to its marker. Held as sent, a reset's
 * hidden content read as live here and not on a node that joined it into a
 * record it had; so did a stray mark or member, or a purged entry's data.
 */
export function heldEntry(raw: Entry): Entry {
  if (raw.purged) return purgedEntry(raw.id, raw.purged);
  return mark(makeEntry(raw.id, raw.latest, prunedFields(raw.fields, raw.reset), raw.reset ? raw : {}));
}

/**
 * Whether joining `raw` raises the purge marker of `held`, a purged entry:
 * the one thing that lands on a purged record (OPS-10), so that the marker
 * is the newest purge's whatever order the purges came in.
 */
export function raisesPurge(held: Entry, raw: Entry): boolean {
  return !!held.purged && !!raw.purged && compareStamps(raw.purged, held.purged) > 0;
}

import type { Stamp } from '../op/types';
import { type Entry, type Field, own } from './entry';
import { joinField, pruneField } from './fields';
import { compareStamps, maxStamp } from './stamp';

function joinAllFields(a: Entry, b: Entry, reset: Stamp | undefined): Record<string, Field> {
  const out: Record<string, Field> = {};
  for (const name of new Set([...Object.keys(a.fields), ...Object.keys(b.fields)])) {
    const fa = own(a.fields, name);
    const fb = own(b.fields, name);
    // One of the two holds the name: it came from their own keys.
    const joined = fa && fb ? joinField(fa, fb) : ((fa ?? fb) as Field);
    const kept = reset ? pruneField(joined, reset) : joined;
    if (kept) out[name] = kept;
  }
  return out;
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
  const out: Entry = { id: a.id, latest, fields: joinAllFields(a, b, newer.reset) };
  if (newer.reset) out.reset = newer.reset;
  if (newer.del) out.del = true;
  if (newer.v !== undefined) out.v = newer.v;
  return out;
}

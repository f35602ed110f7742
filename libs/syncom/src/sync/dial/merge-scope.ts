import { type Entry, isHidden, readEntry } from '../../crdt';
import type { Replica } from '../../storage/replica';

/** The scope of a merge op leaving a record as `e`: a tombstone keeps the scope it had; '*' when the scope function throws. */
export function mergeScope(replica: Replica, id: string, e: Entry): string {
  // Without a scope function every record is '*': the record's fields need not be read for it.
  if (!replica.scoped) return '*';
  if (isHidden(e)) return replica.scopeOf(id);
  try {
    return replica.scopeFor(id, readEntry(e));
  } catch {
    return '*';
  }
}

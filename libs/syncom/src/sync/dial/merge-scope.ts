import { type Entry, isHidden, lazyRecord } from '../../crdt';
import type { Replica } from '../../storage/replica';

/**
 * The scope of a merge op leaving a record as `e`: a tombstone keeps the
 * scope it had, or, never placed here, the one the host holds it in
 * (`removed`, a snapshot page's removedScopes); '*' when the scope function
 * throws. The function reads the record lazily (lazyRecord): a page's entry
 * of one element joined into a record of 100,000 does not read the 100,000.
 */
export function mergeScope(replica: Replica, id: string, e: Entry, removed?: Readonly<Record<string, string>>): string {
  // Without a scope function every record is '*': the record's fields need not be read for it.
  if (!replica.scoped) return '*';
  if (isHidden(e)) return replica.lastScope(id) ?? (removed && Object.hasOwn(removed, id) ? removed[id] : '*');
  try {
    return replica.scopeFor(id, lazyRecord(e));
  } catch {
    return '*';
  }
}

import { type Entry, isHidden } from '../../crdt';
import type { Replica } from '../../storage/replica';
import { allowedFor } from '../protocol/scopes';
import { platform } from '../../platform';

/**
 * Of the ids a peer asked for, those the host holds (sealed ones aside) in a
 * scope the peer may not write: a merge the peer sent of any of them would be
 * refused by the scope boundary (SCOPE-14) and stop that peer's stream there
 * (SCOPE-19). A record that moved out of a scope the peer carries is one: the
 * move's op is of the new scope, so the peer never saw it. The dialer logs no
 * merge of these. The peer already names each id, and a push of it would tell
 * the same by its refusal: nothing new is given away. A purged record is
 * none: records() serves its marker to any peer naming it, since its purge op
 * (of the scope the record was in when purged) never reaches a peer of the
 * scope it left, which would keep the erased data for good.
 */
export function outsideIds(replica: Replica, ids: readonly string[], granted: readonly string[]): string[] {
  const allowed = allowedFor(granted);
  if (allowed === 'all') return [];
  const committed = replica.records;
  return ids.filter((id) => {
    const e = committed.get(id);
    return e !== undefined && e.purged === undefined && !replica.isSealed(id) && !allowed.has(replica.scopeOf(id));
  });
}

/**
 * The scope of each tombstone and purge marker among `entries` held in a
 * scope other than '*' (a snapshot page's and a records answer's
 * removedScopes): it has no field left to place it by, and a dialer that
 * never held it live would place it in '*', where peers of every scope read it.
 * With `granted`, only scopes the peer may read are named: records() serves a
 * purge marker of any scope to a peer naming its id (see outsideIds), and the
 * scope's name is not the peer's to learn (a dialer that held the record
 * places the marker where it last knew it).
 */
export function removedScopesOf(replica: Replica, entries: readonly Entry[], granted?: readonly string[]): Record<string, string> | undefined {
  const allowed = granted === undefined ? 'all' : allowedFor(granted);
  let out: Record<string, string> | undefined;
  for (const e of entries) {
    const scope = replica.scopeOf(e.id);
    if (allowed !== 'all' && !allowed.has(scope)) continue;
    // Defined, not assigned: any string is an id, and `out['__proto__'] = scope` sets nothing, so the
    // tombstone went without its scope and a joining node placed it in '*' (test/hostile/removed-scopes-names.spec.ts).
    if (scope !== '*' && isHidden(e)) Object.defineProperty((out ??= {}), e.id, { value: scope, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The bytes `e` adds to a removedScopes map (`"id":"scope",`), 0 where it adds
 * none: a page's and a records answer's pageBytes count them, since a scope
 * name of 128 characters beside each of many small tombstones would take a
 * page well past the bytes its host promised.
 */
export function removedScopeBytes(replica: Replica, e: Entry): number {
  if (!isHidden(e)) return 0;
  const scope = replica.scopeOf(e.id);
  return scope === '*' ? 0 : platform().byteLength(JSON.stringify(e.id)) + platform().byteLength(JSON.stringify(scope)) + 2;
}

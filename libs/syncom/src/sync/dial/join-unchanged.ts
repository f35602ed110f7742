import type { Entry } from '../../crdt';

/**
 * Whether joining a snapshot's entry left this node's record as it was: the
 * join is the current entry to the letter (its JSON, as a record file holds
 * it). Such a record needs no merge op: its state is already that of ops in
 * this node's log, which a node resuming from here receives as they are. A
 * dialer that pushed its backlog to a new host and then bootstraps from it
 * gets its own records back in the snapshot: without this check it signed,
 * logged and wrote one merge op per record it already had (tens of µs of
 * CPU each, as much as the host spends verifying them). Fields joined in
 * another key order read as changed: a merge more, never one less.
 */
export function joinedUnchanged(current: Entry | undefined, joined: Entry): boolean {
  return current !== undefined && JSON.stringify(joined) === JSON.stringify(current);
}

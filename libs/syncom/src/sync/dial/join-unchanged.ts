import { type Entry, keyedEntries, keyedGet, keyedSize } from '../../crdt';

/** The same value: the same object (a join keeps what it does not change), or the same JSON text. */
const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

/** An entry's marks (id, latest, reset, del, v, purged) as JSON text, in the entry's key order: a few stamps, never the fields. */
function marksText(e: Entry): string {
  const { fields: _fields, ...marks } = e;
  return JSON.stringify(marks);
}

/**
 * Whether joining a snapshot's entry (`raw`) left this node's record as it
 * was. Such a record needs no merge op: its state is already that of ops in
 * this node's log, which a node resuming from here receives as they are. A
 * dialer that pushed its backlog to a new host and then bootstraps from it
 * gets its own records back in the snapshot: without this check it signed,
 * logged and wrote one merge op per record it already had (tens of µs of
 * CPU each, as much as the host spends verifying them).
 *
 * The check costs what the entry holds, not what the record holds: a join
 * keeps every field it does not change (the same object, the same map when
 * none changed), so the marks are compared as text, the fields map by
 * identity first, then the fields the entry named, then field by field by
 * identity. It had compared the whole joined entry and the whole record as
 * JSON text: a host's page naming a 1 MiB record 200 times in entries of
 * ~100 bytes that change nothing made the dialer serialise 400 MiB
 * (test/hostile/join-unchanged-cost.spec.ts). Marks in another key order
 * read as changed: a merge more, never one less.
 */
export function joinedUnchanged(current: Entry | undefined, joined: Entry, raw?: Entry): boolean {
  if (current === undefined) return false;
  if (joined === current) return true;
  if (marksText(joined) !== marksText(current)) return false;
  const [mine, now] = [current.fields, joined.fields];
  if (mine === now) return true;
  if (keyedSize(mine) !== keyedSize(now)) return false;
  // A field the entry changed is among those it named: found without a walk of the record.
  if (raw) for (const [name] of keyedEntries(raw.fields)) if (!same(keyedGet(now, name), keyedGet(mine, name))) return false;
  for (const [name, f] of keyedEntries(now)) if (!same(f, keyedGet(mine, name))) return false;
  return true;
}

import type { Entry, Field } from '../crdt/entry';
import { keyedEntries } from '../crdt/keyed';
import { tagList, type Tags } from '../crdt/tags';
import { canonicalJson } from '../op/canonical';
import { platform } from '../platform';
import type { ReconcileItem } from './types';

const sortedUnique = (tags: Tags) => [...new Set(tagList(tags))].sort();

/**
 * A field with its set tags sorted: the order of tags means nothing to the
 * merge, and a peer's entry may carry them in any order (isEntry does not
 * ask), so two equal states must not digest apart over it.
 */
function normalField(f: Field): Field {
  if (f.k !== 's') return f;
  // Null-prototype maps: a '__proto__' key stays a key, not a prototype.
  const el: Record<string, { add: string[]; rem: string[] }> = Object.create(null);
  for (const [text, e] of keyedEntries(f.el)) el[text] = { add: sortedUnique(e.add), rem: sortedUnique(e.rem) };
  return { k: 's', el };
}

/**
 * The digest of a record's merge state: SHA-256 of the canonical JSON of the
 * entry (set tags sorted), cut to 128 bits, base64url. Equal digests mean
 * replicas that need nothing from each other for this record.
 * @example
 * entryDigest(storage.replica.current(id)) // 'q3Vb…' (22 characters)
 */
export function entryDigest(entry: Entry): string {
  const fields: Record<string, Field> = Object.create(null);
  for (const [name, f] of keyedEntries(entry.fields)) fields[name] = normalField(f);
  const text = canonicalJson({ ...entry, fields });
  const p = platform();
  return p.base64url(p.sha256Bytes(p.utf8(text)).subarray(0, 16));
}

/** A record as an item of its scope's set: keyed by (newest stamp's ts, id), with its entryDigest. */
export function entryItem(entry: Entry): ReconcileItem {
  return { ts: entry.latest[0], id: entry.id, digest: entryDigest(entry) };
}

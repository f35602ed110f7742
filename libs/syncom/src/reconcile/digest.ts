import type { Entry, Field, SetElement } from '../crdt/entry';
import { holdsSorted, slotsText } from '../crdt/entry-text';
import { keyedEntries, type Keyed, sortedEntries } from '../crdt/keyed';
import { SortedMap } from '../crdt/sorted-map';
import { tagList, type Tags } from '../crdt/tags';
import { canonicalJson, canonicalPick } from '../op/canonical';
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

const elementLeaves = new WeakMap<object, string>();
const fieldLeaves = new WeakMap<object, string>();

// Canonical texts, keys in code-unit order as canonicalJson sorts them ("add" < "rem", "by"/"el" < "k").
const elementText = (e: SetElement) => `{"add":${JSON.stringify(sortedUnique(e.add))},"rem":${JSON.stringify(sortedUnique(e.rem))}}`;

function fieldText(f: Field): string {
  const out: string[] = [];
  fieldParts(f, out);
  return out.join('');
}

/** A field's canonical text, in pieces: a large set's element texts as its kept leaf texts. */
function fieldParts(f: Field, out: string[]): void {
  if (f.k === 'c' && f.by instanceof SortedMap) out.push(`{"by":${slotsText(f.by)},"k":"c"}`);
  else if (f.k === 's' && f.el instanceof SortedMap) {
    out.push('{"el":');
    f.el.jsonParts(elementText, elementLeaves, out);
    out.push(',"k":"s"}');
  } else out.push(canonicalJson(normalField(f)));
}

function fieldsParts(fields: Keyed<Field>, out: string[]): void {
  if (fields instanceof SortedMap) return fields.jsonParts(fieldText, fieldLeaves, out);
  out.push('{');
  sortedEntries(fields).forEach(([name, f], i) => {
    out.push(`${i === 0 ? '' : ','}${JSON.stringify(name)}:`);
    fieldParts(f, out);
  });
  out.push('}');
}

/**
 * canonicalJson({ ...entry, fields: normalized }) of an entry holding a
 * sorted map, in pieces: the maps' texts from canonical texts kept per
 * leaf, so a reconcile after one op on a set of 100,000 elements digests the
 * leaf the op changed and hashes the rest one piece after another, with no
 * joined copy of the text (about 0.5 s before leaf texts were kept, 25 ms
 * before the pieces were hashed apart). The properties of
 * test/crdt/large-fields.spec.ts hold it equal to the plain form's digest.
 */
function sortedEntryParts(entry: Entry): string[] {
  const keys = Object.keys(entry).filter((k) => k !== 'fields').sort();
  const inner = (names: string[]) => canonicalPick(entry, names).slice(1, -1);
  const before = inner(keys.filter((k) => k < 'fields'));
  const after = inner(keys.filter((k) => k > 'fields'));
  const out = [before === '' ? '{"fields":' : `{${before},"fields":`];
  fieldsParts(entry.fields, out);
  out.push(after === '' ? '}' : `,${after}}`);
  return out;
}

/**
 * The digest of a record's merge state: SHA-256 of the canonical JSON of the
 * entry (set tags sorted), cut to 128 bits, base64url. Equal digests mean
 * replicas that need nothing from each other for this record.
 * @example
 * entryDigest(storage.replica.current(id)) // 'q3Vb…' (22 characters)
 */
export function entryDigest(entry: Entry): string {
  const p = platform();
  if (holdsSorted(entry)) return p.base64url(p.fromBase64url(p.sha256Parts(sortedEntryParts(entry))).subarray(0, 16));
  const fields: Record<string, Field> = Object.create(null);
  for (const [name, f] of keyedEntries(entry.fields)) fields[name] = normalField(f);
  return p.base64url(p.sha256Bytes(p.utf8(canonicalJson({ ...entry, fields }))).subarray(0, 16));
}

/** A record as an item of its scope's set: keyed by (newest stamp's ts, id), with its entryDigest. */
export function entryItem(entry: Entry): ReconcileItem {
  return { ts: entry.latest[0], id: entry.id, digest: entryDigest(entry) };
}

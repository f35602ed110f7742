import type { Entry, Field, SetElement } from '../crdt/entry';
import { type Keyed, keyedSize, sortedEntries } from '../crdt/keyed';
import { SortedMap } from '../crdt/sorted-map';
import { type Tags, TagSet } from '../crdt/tags';
import { canonicalJson, canonicalPick } from '../op/canonical';
import { platform } from '../platform';
import { BUCKET, DigestTrie } from './digest-trie';
import type { ReconcileItem } from './types';

/**
 * Keys past which a map of an entry (its fields, a set's elements, a
 * counter's slots), or distinct tags past which an element's tag list, is
 * digested as the root of its trie rather than as its text: one bucket's
 * worth, so the trie of a large map always branches at its root.
 */
export const LARGE = BUCKET;

const json = (x: unknown) => JSON.stringify(x);
/** The tags sorted, each once: the list itself when it already is (as a list this node built is), else a sorted copy. */
function sortedUnique(tags: readonly string[]): readonly string[] {
  let i = 1;
  while (i < tags.length && tags[i - 1] < tags[i]) i++;
  return i >= tags.length ? tags : [...new Set(tags)].sort();
}

/** A large map's or tag list's form in the digested text: a JSON string no map or list can be, so the two forms never meet. */
const trieForm = (t: { digest(): string }) => `"#${t.digest()}"`;

/**
 * A map's form in the digested text: its canonical JSON (keys in code-unit
 * order) while LARGE keys or fewer, else its trie's root. A sorted map keeps
 * its trie beside it (SortedMap.follow), changed with each set() and
 * delete(): a record digested again after one op on a set of 100,000
 * elements hashes the path to that element's bucket, not the set. A plain
 * map past LARGE (a peer's page, read whole) builds one.
 */
function mapForm<V>(m: Keyed<V>, item: (key: string, val: V) => string): string {
  if (keyedSize(m) <= LARGE) return `{${sortedEntries(m).map(([k, v]) => item(k, v)).join(',')}}`;
  if (m instanceof SortedMap) return trieForm(m.follow((keys, vals) => DigestTrie.of(keys, vals, item)));
  const entries = sortedEntries(m);
  return trieForm(DigestTrie.of(entries.map((e) => e[0]), entries.map((e) => e[1]), item));
}

/**
 * UTF-16 code units past which an item's text (a field, an element, a slot
 * with its key) stands in its map's text as `#` and the base64url SHA-256 of
 * its UTF-8 (44 characters; no JSON text starts with `#`). A bucket or a
 * small map then hashes at most 64 such forms however large its values: a
 * one-byte op beside 64 elements of a megabyte each hashes its bucket's 64
 * KB, not 64 MB.
 */
export const LONG_ITEM = 1024;

/** The hashed forms of long items, by the value they were taken of (values never change), with the key they were under. */
const longForms = new WeakMap<object, { key: string; form: string }>();

/** `item`, with a text past LONG_ITEM given as its hashed form, taken once per value. */
function bounded<V>(item: (key: string, val: V) => string): (key: string, val: V) => string {
  return (key, val) => {
    const held = typeof val === 'object' && val !== null ? longForms.get(val) : undefined;
    if (held && held.key === key) return held.form;
    const text = item(key, val);
    if (text.length <= LONG_ITEM) return text;
    const p = platform();
    const form = `#${p.base64url(p.sha256Bytes(p.utf8(text)))}`;
    if (typeof val === 'object' && val !== null) longForms.set(val, { key, form });
    return form;
  };
}

// A tag is at most 145 characters (isTag): its text is never long.
const tagItem = (tag: string) => json(tag);

/** A tag list's form: sorted, each tag once (their order and repetition mean nothing to the merge); past LARGE, its trie's root. */
function tagsForm(tags: Tags): string {
  if (tags instanceof TagSet) return tags.size <= LARGE ? json(tags.list()) : trieForm(tags.follow((keys, vals) => DigestTrie.of(keys, vals, tagItem)));
  const list = sortedUnique(tags);
  return list.length <= LARGE ? json(list) : trieForm(DigestTrie.of(list, list, tagItem));
}

// Canonical texts, members in code-unit order as canonicalJson sorts them ("add" < "rem", "by"/"el" < "k").
const elementItem = bounded((text: string, e: SetElement) => `${json(text)}:{"add":${tagsForm(e.add)},"rem":${tagsForm(e.rem)}}`);
const slotItem = bounded((origin: string, slot: unknown) => `${json(origin)}:${canonicalJson(slot)}`);

function fieldForm(f: Field): string {
  if (f.k === 'c') return `{"by":${mapForm(f.by, slotItem)},"k":"c"}`;
  if (f.k === 's') return `{"el":${mapForm(f.el, elementItem)},"k":"s"}`;
  return canonicalJson(f);
}

const fieldItem = bounded((name: string, f: Field) => `${json(name)}:${fieldForm(f)}`);

/**
 * The digest of a record's merge state: SHA-256 of the entry's canonical
 * JSON (set tags sorted, each once), each map or tag list past LARGE keys
 * standing there as its trie's root (digest-trie.ts) and each item past
 * LONG_ITEM as its hash, cut to 128 bits, base64url. Equal digests mean
 * replicas that need nothing from each other for this record. A record
 * whose maps are all small and items all short digests as its canonical
 * JSON alone (RECONCILE.md, A record's digest).
 * @example
 * entryDigest(storage.replica.current(id)) // 'q3Vb…' (22 characters)
 */
export function entryDigest(entry: Entry): string {
  const keys = Object.keys(entry).filter((k) => k !== 'fields').sort();
  const inner = (names: string[]) => canonicalPick(entry, names).slice(1, -1);
  const before = inner(keys.filter((k) => k < 'fields'));
  const after = inner(keys.filter((k) => k > 'fields'));
  const text = `{${before}${before === '' ? '' : ','}"fields":${mapForm(entry.fields, fieldItem)}${after === '' ? '' : ','}${after}}`;
  const p = platform();
  return p.base64url(p.sha256Bytes(p.utf8(text)).subarray(0, 16));
}

/** A record as an item of its scope's set: keyed by (newest stamp's ts, id), with its entryDigest. */
export function entryItem(entry: Entry): ReconcileItem {
  return { ts: entry.latest[0], id: entry.id, digest: entryDigest(entry) };
}

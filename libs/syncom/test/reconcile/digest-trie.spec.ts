import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { applyOp, type Entry, type Field, SortedMap } from '../../src/crdt';
import { TagSet } from '../../src/crdt/tags';
import { canonicalJson } from '../../src/op/canonical';
import type { Op } from '../../src/op/types';
import { platform } from '../../src/platform';
import { entryDigest } from '../../src/reconcile';
import { LARGE, LONG_ITEM } from '../../src/reconcile/digest';
import { BUCKET, DigestTrie, type TrieShape } from '../../src/reconcile/digest-trie';
import { plain } from '../crdt/large-history';
import { fcRuns } from './helpers';

/**
 * The digest of a large map as RECONCILE.md defines it, written again from
 * the definition alone (no incremental step): a key's place is its
 * FNV-1a/murmur3 32-bit hash, nibble by nibble from the top, then SHA-256 of
 * its UTF-16 code units; a node of BUCKET items or fewer hashes as "L" and
 * its items' texts joined by commas, in key order; a larger one as the byte
 * 0x4e and the 32-byte hashes of its 16 parts (zeros for an empty one).
 */
function cheap32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function nibble(key: string, d: number, shape: TrieShape): number {
  if (d < shape.cheap) return (cheap32(key) >>> (28 - 4 * d)) & 15;
  const strong = createHash('sha256').update(Buffer.from(key, 'utf16le')).digest();
  const i = d - shape.cheap;
  return (strong[i >> 1] >> (i & 1 ? 0 : 4)) & 15;
}

function reference(items: [string, string][], shape: TrieShape, d = 0): Buffer {
  if (items.length <= shape.bucket || d >= shape.cheap + 64) {
    return createHash('sha256').update(`L${[...items].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((x) => x[1]).join(',')}`).digest();
  }
  const text = Buffer.alloc(1 + 16 * 32);
  text[0] = 0x4e;
  for (let n = 0; n < 16; n++) {
    const part = items.filter(([k]) => nibble(k, d, shape) === n);
    if (part.length) reference(part, shape, d + 1).copy(text, 1 + 32 * n);
  }
  return createHash('sha256').update(text).digest();
}

const CANONICAL: TrieShape = { bucket: BUCKET, cheap: 8 };
const SHAPES: TrieShape[] = [CANONICAL, { bucket: 2, cheap: 1 }, { bucket: 1, cheap: 0 }];
const itemOf = (k: string, v: number) => `${JSON.stringify(k)}:${v}`;
const byKey = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const expected = (model: Map<string, number>, shape: TrieShape) =>
  reference([...model].map(([k, v]) => [k, itemOf(k, v)]), shape).toString('base64url');

describe('RECON DigestTrie: the digest of a large map', () => {
  // Keys from a small alphabet, lone surrogates included: many share places, so buckets split, fold and go deep.
  const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', '\ud800', '\udc00', 'é'), maxLength: 6 });
  const step = fc.tuple(fc.boolean(), key, fc.integer({ min: 0, max: 9 }));

  it('a trie changed by set and delete hashes as the definition gives for its items, at any shape and after any history', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300, size: 'max' }), fc.constantFrom(...SHAPES), (steps, shape) => {
        const model = new Map<string, number>();
        let trie = DigestTrie.of<number>([], [], itemOf, shape);
        for (const [del, k, v] of steps) {
          const before = trie;
          if (del) { trie = trie.delete(k); model.delete(k); } else { trie = trie.set(k, v); model.set(k, v); }
          if (del && !before.size) expect(trie).toBe(before);
        }
        expect(trie.size).toBe(model.size);
        expect(trie.digest()).toBe(expected(model, shape));
        const sorted = [...model].sort(byKey);
        expect(DigestTrie.of(sorted.map((e) => e[0]), sorted.map((e) => e[1]), itemOf, shape).digest()).toBe(trie.digest());
      }),
      { numRuns: fcRuns(150) },
    );
  });

  it('kept beside a SortedMap or a TagSet, it follows every set() and delete() of the maps made from it', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 100, maxLength: 300 }), fc.nat(99), fc.constantFrom(...SHAPES), (steps, at, shape) => {
        const model = new Map<string, number>();
        let map = SortedMap.ofSorted<number>([]);
        // 100 tags no reset here drops keep the set past 32 (a TagSet); a delete step drops the steps' tags 20 or more steps old.
        let tags = TagSet.ofSorted(Array.from({ length: 100 }, (_, j) => `${1_000_000 + j}:z`));
        const follow = () => {
          map.follow((keys, vals) => DigestTrie.of(keys, vals, itemOf, shape));
          tags.follow((keys, vals) => DigestTrie.of(keys, vals, (k: string) => JSON.stringify(k), shape));
        };
        steps.forEach(([del, k, v], i) => {
          if (i === at) follow();
          if (del) { map = map.delete(k); model.delete(k); tags = tags.withoutOlder([i - 20, '']) as TagSet; } else { map = map.set(k, v); model.set(k, v); tags = tags.with([`${i}:${k}`]); }
        });
        follow();
        expect(map.follow((): DigestTrie<number> => { throw new Error('kept'); }).digest()).toBe(expected(model, shape));
        const held = tags.list().map((t): [string, string] => [t, JSON.stringify(t)]);
        expect(tags.follow((): DigestTrie<1> => { throw new Error('kept'); }).digest()).toBe(reference(held, shape).toString('base64url'));
      }),
      { numRuns: fcRuns(100) },
    );
  });
});

describe('RECON entryDigest of records with large maps', () => {
  const add = (seq: number, value: string[], origin = 'A'): Op => ({ origin, seq, ts: 1000 + seq, type: 'add', id: 'r', key: 'tags', value }) as Op;
  const sha = (text: string) => createHash('sha256').update(text).digest();

  it(`a record whose maps hold ${LARGE} keys or fewer digests as its canonical JSON, set tags sorted, each once`, () => {
    const e: Entry = {
      id: 'r', latest: [5, 'B'], v: 1,
      fields: { t: { k: 'r', s: [5, 'B'], val: { z: 1, a: 2 } }, s: { k: 's', el: { '"x"': { add: ['5:B', '4:A', '5:B'], rem: [] } } } },
    };
    const canonical = canonicalJson({ ...e, fields: { ...e.fields, s: { k: 's', el: { '"x"': { add: ['4:A', '5:B'], rem: [] } } } } });
    expect(entryDigest(e)).toBe(sha(canonical).subarray(0, 16).toString('base64url'));
  });

  it(`a set past ${LARGE} elements and an element past ${LARGE} tags stand in the text as their tries' roots; any history and the plain copy digest alike`, () => {
    let e: Entry | undefined;
    let seq = 0;
    for (let i = 0; i < 300; i++) e = applyOp(e, add(++seq, [`e${i}`])).entry;
    // Digested once midway: from here the maps keep their tries and later ops change them.
    const midway = entryDigest(e as Entry);
    for (let i = 0; i < 100; i++) e = applyOp(e, add(++seq, ['e7'], i % 2 ? 'A' : 'B')).entry;
    const entry = e as Entry;
    expect(entryDigest(entry)).not.toBe(midway);
    expect(entryDigest(plain(entry))).toBe(entryDigest(entry));
    // The definition, written out: e7's add tags past LARGE stand as their trie's root, and so does the set.
    const p = plain(entry);
    const el = (p.fields as unknown as Record<string, { el: Record<string, { add: string[]; rem: string[] }> }>).tags.el;
    const tagsText = (tags: string[]) => {
      const u = [...new Set(tags)].sort();
      return u.length <= LARGE ? JSON.stringify(u) : `"#${reference(u.map((t) => [t, JSON.stringify(t)]), CANONICAL).toString('base64url')}"`;
    };
    const items = Object.entries(el).map(([k, x]): [string, string] => [k, `${JSON.stringify(k)}:{"add":${tagsText(x.add)},"rem":${tagsText(x.rem)}}`]);
    const setText = `"#${reference(items, CANONICAL).toString('base64url')}"`;
    const text = `{"fields":{"tags":{"el":${setText},"k":"s"}},"id":"r","latest":${JSON.stringify(p.latest)}}`;
    expect(entryDigest(entry)).toBe(sha(text).subarray(0, 16).toString('base64url'));
  });

  it(`an item past ${LONG_ITEM} characters stands in its map's text as # and its SHA-256, in a small map and in a bucket`, () => {
    const long = 'x'.repeat(LONG_ITEM);
    const e: Entry = { id: 'r', latest: [5, 'B'], fields: { big: { k: 'r', s: [5, 'B'], val: long }, t: { k: 'r', s: [5, 'B'], val: 1 } } };
    const bigText = `"big":{"k":"r","s":[5,"B"],"val":${JSON.stringify(long)}}`;
    const text = `{"fields":{#${sha(bigText).toString('base64url')},"t":{"k":"r","s":[5,"B"],"val":1}},"id":"r","latest":[5,"B"]}`;
    expect(entryDigest(e)).toBe(sha(text).subarray(0, 16).toString('base64url'));
    // One character shorter, the item is its text.
    const short: Entry = { ...e, fields: { ...(e.fields as Record<string, Field>), big: { k: 'r', s: [5, 'B'], val: long.slice(0, -(bigText.length - LONG_ITEM)) } } };
    expect(entryDigest(short)).toBe(sha(canonicalJson(short)).subarray(0, 16).toString('base64url'));
    // In a set past LARGE, the same form inside its bucket: the digest follows the definition, whatever the history.
    let set: Entry | undefined;
    for (let i = 0; i < 100; i++) set = applyOp(set, add(i + 1, [`${i}${i % 10 === 0 ? long : ''}`])).entry;
    const p = plain(set as Entry);
    const el = (p.fields as unknown as Record<string, { el: Record<string, { add: string[]; rem: string[] }> }>).tags.el;
    const items = Object.entries(el).map(([k, x]): [string, string] => {
      const t = `${JSON.stringify(k)}:{"add":${JSON.stringify(x.add)},"rem":[]}`;
      return [k, t.length > LONG_ITEM ? `#${sha(t).toString('base64url')}` : t];
    });
    const whole = `{"fields":{"tags":{"el":"#${reference(items, CANONICAL).toString('base64url')}","k":"s"}},"id":"r","latest":${JSON.stringify(p.latest)}}`;
    expect(entryDigest(set as Entry)).toBe(sha(whole).subarray(0, 16).toString('base64url'));
    expect(entryDigest(p)).toBe(entryDigest(set as Entry));
  });

  it('GUAR-3: beside 40 fields or 200 elements of 100 KB each, one small op costs the digest a few KB of hashing, not the record', () => {
    const huge = (i: number) => `${i}:${'y'.repeat(100_000)}`;
    let fields: Entry | undefined;
    let elements: Entry | undefined;
    for (let i = 0; i < 40; i++) fields = applyOp(fields, { origin: 'A', seq: i + 1, ts: 1000 + i, type: 'set', id: 'f', data: { [`f${i}`]: huge(i) } } as Op).entry;
    for (let i = 0; i < 200; i++) elements = applyOp(elements, add(i + 1, [huge(i)])).entry;
    entryDigest(fields as Entry);
    entryDigest(elements as Entry);
    const p = platform();
    const bytesOf = p.sha256Bytes.bind(p);
    let hashed = 0;
    const spy = jest.spyOn(p, 'sha256Bytes').mockImplementation((d) => { hashed += d.length; return bytesOf(d); });
    try {
      for (let i = 0; i < 20; i++) {
        fields = applyOp(fields, { origin: 'A', seq: 100 + i, ts: 2000 + i, type: 'set', id: 'f', data: { n: i } } as Op).entry;
        elements = applyOp(elements, add(300 + i, [`small${i}`])).entry;
        hashed = 0;
        entryDigest(fields as Entry);
        entryDigest(elements as Entry);
        expect(hashed).toBeLessThan(16_384);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('GUAR-3: a record of a set of 100,000 elements digested again after one add hashes a few nodes, not the set', () => {
    let e = applyOp(undefined, add(1, Array.from({ length: 100_000 }, (_, i) => `e${i}`))).entry as Entry;
    entryDigest(e);
    const hashes = jest.spyOn(platform(), 'sha256Bytes');
    try {
      for (let i = 0; i < 50; i++) {
        e = applyOp(e, add(2 + i, [`x${i}`])).entry as Entry;
        entryDigest(e);
      }
      // Per add: the bucket the element fell in, a branch per level above it (3 at this size), the record's text.
      expect(hashes.mock.calls.length).toBeLessThanOrEqual(50 * 6);
    } finally {
      hashes.mockRestore();
    }
  });
});

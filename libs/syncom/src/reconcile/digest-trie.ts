import { type Follower, lowerBound } from '../crdt/sorted-map';
import { platform } from '../platform';

/** Items a bucket holds at most: one more splits it in 16 by the next nibble of its keys' places. */
export const BUCKET = 64;

/** Nibbles of a key's place read from a 32-bit hash of it; deeper ones from SHA-256 of its code units. */
const CHEAP_NIBBLES = 8;

/**
 * How a trie is cut: the canonical one is { bucket: BUCKET, cheap:
 * CHEAP_NIBBLES }; tests cut smaller ones to reach the deep levels.
 */
export interface TrieShape {
  bucket: number;
  cheap: number;
}

interface Bucket<V> {
  readonly keys: readonly string[];
  readonly vals: readonly V[];
  /** The node's hash, taken at the first ask (nodes never change). */
  hash?: Uint8Array;
}

interface Branch<V> {
  /** By the nibble of the key's place at this depth; undefined where no key falls. */
  readonly kids: readonly (TrieNode<V> | undefined)[];
  readonly count: number;
  hash?: Uint8Array;
}

type TrieNode<V> = Bucket<V> | Branch<V>;

const isBranch = <V>(n: TrieNode<V>): n is Branch<V> => 'kids' in n;
const countOf = <V>(n: TrieNode<V> | undefined): number => (n === undefined ? 0 : isBranch(n) ? n.count : n.keys.length);

/** FNV-1a over the UTF-16 code units, then murmur3's finalizer so that every bit of the result moves with every unit. */
function cheap32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Levels a key's place has: past the last a bucket holds whatever falls in it (keys alike in all of it). */
const depthOf = (shape: TrieShape) => shape.cheap + 64;

function spliced<T>(list: readonly T[], at: number, out: number, items: readonly T[]): T[] {
  const copy = list.slice();
  copy.splice(at, out, ...items);
  return copy;
}

/**
 * The nibble at depth `d` of a key's place, `cheap` its 32-bit hash: the
 * first `shape.cheap` nibbles from that hash, cheap enough for a map of
 * 100,000 keys; past them SHA-256 of the key's code units, which only a
 * bucket of keys alike in all 32 bits reads (chosen keys, whose finder pays
 * 16 hashes per key for each level it adds: the depth, and with it the cost
 * of a change, stays a few levels).
 */
function nibbleAt(key: string, cheap: number, d: number, shape: TrieShape): number {
  if (d < shape.cheap) return (cheap >>> (28 - 4 * d)) & 15;
  const i = d - shape.cheap;
  return (platform().sha256Utf16(key)[i >> 1] >> (i & 1 ? 0 : 4)) & 15;
}

/**
 * The node at depth `d` of the items at `idx` (in key order) of keys, vals
 * and their 32-bit hashes: a bucket while they are `shape.bucket` or fewer,
 * else a branch of 16 by the nibble at d. What makes the trie canonical:
 * its shape follows from its keys alone, however it was built or changed.
 */
function nodeOf<V>(keys: readonly string[], vals: readonly V[], cheap: readonly number[], idx: number[], d: number, shape: TrieShape): TrieNode<V> {
  if (idx.length <= shape.bucket || d >= depthOf(shape)) return { keys: idx.map((i) => keys[i]), vals: idx.map((i) => vals[i]) };
  const parts: number[][] = Array.from({ length: 16 }, () => []);
  for (const i of idx) parts[nibbleAt(keys[i], cheap[i], d, shape)].push(i);
  const kids = parts.map((p) => (p.length === 0 ? undefined : nodeOf(keys, vals, cheap, p, d + 1, shape)));
  return { kids, count: idx.length };
}

/** A key's place, read a nibble a level. */
function placer(key: string, shape: TrieShape): (depth: number) => number {
  const cheap = cheap32(key);
  return (d) => nibbleAt(key, cheap, d, shape);
}

/** nodeOf all of `keys` (in key order). */
function nodeOfAll<V>(keys: readonly string[], vals: readonly V[], d: number, shape: TrieShape): TrieNode<V> {
  const cheap = new Array<number>(keys.length);
  const idx = new Array<number>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    cheap[i] = cheap32(keys[i]);
    idx[i] = i;
  }
  return nodeOf(keys, vals, cheap, idx, d, shape);
}

/** The items under a node, in key order (a branch about to fold into one bucket: BUCKET items at most). */
function itemsOf<V>(node: TrieNode<V>, out: [string, V][]): [string, V][] {
  if (isBranch(node)) {
    for (const kid of node.kids) if (kid) itemsOf(kid, out);
  } else {
    for (let i = 0; i < node.keys.length; i++) out.push([node.keys[i], node.vals[i]]);
  }
  return out;
}

function put<V>(node: TrieNode<V>, key: string, val: V, place: (d: number) => number, d: number, shape: TrieShape): TrieNode<V> {
  if (!isBranch(node)) {
    const i = lowerBound(node.keys, key);
    if (node.keys[i] === key) return { keys: node.keys, vals: spliced(node.vals, i, 1, [val]) };
    const keys = spliced(node.keys, i, 0, [key]);
    const vals = spliced(node.vals, i, 0, [val]);
    if (keys.length <= shape.bucket || d >= depthOf(shape)) return { keys, vals };
    return nodeOfAll(keys, vals, d, shape);
  }
  const n = place(d);
  const kid = node.kids[n];
  const next = kid ? put(kid, key, val, place, d + 1, shape) : { keys: [key], vals: [val] };
  return { kids: spliced(node.kids, n, 1, [next]), count: node.count - countOf(kid) + countOf(next) };
}

/** `node` without `key`: the same node when it has none, undefined when nothing is left; a branch left with BUCKET items or fewer folds into a bucket. */
function remove<V>(node: TrieNode<V>, key: string, place: (d: number) => number, d: number, shape: TrieShape): TrieNode<V> | undefined {
  if (!isBranch(node)) {
    const i = lowerBound(node.keys, key);
    if (node.keys[i] !== key) return node;
    if (node.keys.length === 1) return undefined;
    return { keys: spliced(node.keys, i, 1, []), vals: spliced(node.vals, i, 1, []) };
  }
  const n = place(d);
  const kid = node.kids[n];
  const next = kid && remove(kid, key, place, d + 1, shape);
  if (next === kid) return node;
  const branch: Branch<V> = { kids: spliced(node.kids, n, 1, [next]), count: node.count - 1 };
  if (branch.count > shape.bucket) return branch;
  const items = itemsOf(branch, []).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return { keys: items.map((x) => x[0]), vals: items.map((x) => x[1]) };
}

/** Bytes of a branch's hashed text: a tag byte, then each kid's 32-byte hash (zeros where none). */
const BRANCH_BYTES = 1 + 16 * 32;

function hashOf<V>(node: TrieNode<V>, item: (key: string, val: V) => string): Uint8Array {
  if (node.hash) return node.hash;
  const p = platform();
  if (isBranch(node)) {
    const text = new Uint8Array(BRANCH_BYTES);
    text[0] = 0x4e; // 'N': no bucket's text starts with it
    node.kids.forEach((kid, n) => { if (kid) text.set(hashOf(kid, item), 1 + 32 * n); });
    node.hash = p.sha256Bytes(text);
  } else {
    const items = new Array<string>(node.keys.length);
    for (let i = 0; i < items.length; i++) items[i] = item(node.keys[i], node.vals[i]);
    node.hash = p.sha256Bytes(p.utf8(`L${items.join(',')}`));
  }
  return node.hash;
}

/**
 * A canonical hash trie of a map's items, the digest of a large map of a
 * record (RECONCILE.md, The set): a key falls by its place (cheap32, then
 * SHA-256), a bucket's hash is SHA-256 of its items' texts in key order, a
 * branch's SHA-256 of its 16 kids' hashes. Its shape follows from the keys,
 * so two replicas holding the same map hash alike whatever their histories;
 * kept beside a SortedMap (its Follower), a change of one item costs the
 * path to its bucket and that bucket's items, where the text of the whole
 * map cost every item (10-15 ms at 100,000 elements).
 */
export class DigestTrie<V> implements Follower<V> {
  private constructor(
    private readonly root: TrieNode<V>,
    private readonly item: (key: string, val: V) => string,
    private readonly shape: TrieShape,
  ) {}

  /** The trie of `keys` (distinct, in code-unit order) and their `vals`; `item` gives an item's text. */
  static of<V>(keys: readonly string[], vals: readonly V[], item: (key: string, val: V) => string, shape: TrieShape = { bucket: BUCKET, cheap: CHEAP_NIBBLES }): DigestTrie<V> {
    return new DigestTrie(nodeOfAll(keys, vals, 0, shape), item, shape);
  }

  get size(): number {
    return countOf(this.root);
  }

  set(key: string, val: V): DigestTrie<V> {
    return new DigestTrie(put(this.root, key, val, placer(key, this.shape), 0, this.shape), this.item, this.shape);
  }

  delete(key: string): DigestTrie<V> {
    const root = remove(this.root, key, placer(key, this.shape), 0, this.shape);
    if (root === this.root) return this;
    return new DigestTrie(root ?? { keys: [], vals: [] }, this.item, this.shape);
  }

  /** SHA-256 of the root, base64url (43 characters): the hashes of nodes a change did not copy are kept. */
  digest(): string {
    return platform().base64url(hashOf(this.root, this.item));
  }
}

/** Keys a node holds at most: a change copies one node per level, about log32(n) of them. */
const WIDTH = 32;

interface Leaf<V> {
  readonly keys: readonly string[];
  readonly vals: readonly V[];
}

/** keys[i] is the smallest key under kids[i]. */
interface Inner<V> {
  readonly keys: readonly string[];
  readonly kids: readonly Node<V>[];
}

type Node<V> = Leaf<V> | Inner<V>;

const isInner = <V>(n: Node<V>): n is Inner<V> => 'kids' in n;

/** The first index of a sorted list whose key is not below `key` (strings in code-unit order, or numbers). */
export function lowerBound<K extends string | number>(keys: readonly K[], key: K): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The last of sorted first keys not above `key` (0 for a key below every
 * one): the child of an inner node whose range holds it, or the chunk of a
 * SortedChunks.
 */
export function kidFor(keys: readonly string[], key: string): number {
  const i = lowerBound(keys, key);
  return i < keys.length && keys[i] === key ? i : Math.max(0, i - 1);
}

/** An array with `out` items from `at` replaced by `items`. */
function spliced<T>(list: readonly T[], at: number, out: number, items: readonly T[]): T[] {
  const copy = list.slice();
  copy.splice(at, out, ...items);
  return copy;
}

/** A node of `keys` and `parts` (vals or kids), split in two halves past WIDTH. */
function made<V>(keys: string[], parts: unknown[], inner: boolean): Node<V>[] {
  const node = (k: string[], p: unknown[]): Node<V> => (inner ? { keys: k, kids: p as Node<V>[] } : { keys: k, vals: p as V[] });
  if (keys.length <= WIDTH) return [node(keys, parts)];
  const half = keys.length >> 1;
  return [node(keys.slice(0, half), parts.slice(0, half)), node(keys.slice(half), parts.slice(half))];
}

/** `node` with key set to val: one node, or two after a split; `added` when the key is new. */
function put<V>(node: Node<V>, key: string, val: V, added: { yes: boolean }): Node<V>[] {
  if (!isInner(node)) {
    const i = lowerBound(node.keys, key);
    if (node.keys[i] === key) return [{ keys: node.keys, vals: spliced(node.vals, i, 1, [val]) }];
    added.yes = true;
    return made(spliced(node.keys, i, 0, [key]), spliced(node.vals, i, 0, [val]), false);
  }
  const i = kidFor(node.keys, key);
  const kids = put(node.kids[i], key, val, added);
  return made(spliced(node.keys, i, 1, kids.map((k) => k.keys[0])), spliced(node.kids, i, 1, kids), true);
}

/** `node` without `key`: the same node when it has no such key, null when it held nothing else. */
function remove<V>(node: Node<V>, key: string): Node<V> | null {
  if (!isInner(node)) {
    const i = lowerBound(node.keys, key);
    if (node.keys[i] !== key) return node;
    if (node.keys.length === 1) return null;
    return { keys: spliced(node.keys, i, 1, []), vals: spliced(node.vals, i, 1, []) };
  }
  const i = kidFor(node.keys, key);
  const kid = remove(node.kids[i], key);
  if (kid === node.kids[i]) return node;
  if (kid === null) return node.kids.length === 1 ? null : { keys: spliced(node.keys, i, 1, []), kids: spliced(node.kids, i, 1, []) };
  return { keys: spliced(node.keys, i, 1, [kid.keys[0]]), kids: spliced(node.kids, i, 1, [kid]) };
}

/**
 * Something kept beside a map and changed with it, such as the trie a
 * record's digest is taken over (reconcile/digest-trie.ts): the maps set()
 * and delete() make carry it on, changed by the same key, so it is built
 * once per map and then costs each change a path, not the map.
 */
export interface Follower<V> {
  set(key: string, val: V): Follower<V>;
  delete(key: string): Follower<V>;
}

/** How `least` and `visitOlder` measure a map's entries: a stamp of each, and the older of two. */
export interface Measure<V, M> {
  of(key: string, val: V): M;
  older(a: M, b: M): boolean;
  /** Each node's least measure, kept: nodes never change, so a version a few changes away measures a few paths. */
  cache: WeakMap<object, M | null>;
}

/** The least measure under a node (null for an empty leaf), kept per node. */
function leastOf<V, M>(node: Node<V>, m: Measure<V, M>): M | null {
  const kept = m.cache.get(node);
  if (kept !== undefined) return kept;
  let least: M | null = null;
  if (isInner(node)) {
    for (const kid of node.kids) {
      const x = leastOf(kid, m);
      if (x !== null && (least === null || m.older(x, least))) least = x;
    }
  } else {
    for (let i = 0; i < node.keys.length; i++) {
      const x = m.of(node.keys[i], node.vals[i]);
      if (least === null || m.older(x, least)) least = x;
    }
  }
  m.cache.set(node, least);
  return least;
}

/** Each entry under `node` whose measure is older than `than`, subtrees with nothing older skipped. */
function older<V, M>(node: Node<V>, than: M, m: Measure<V, M>, fn: (key: string, val: V) => void): void {
  const least = leastOf(node, m);
  if (least === null || !m.older(least, than)) return;
  if (isInner(node)) for (const kid of node.kids) older(kid, than, m, fn);
  else for (let i = 0; i < node.keys.length; i++) if (m.older(m.of(node.keys[i], node.vals[i]), than)) fn(node.keys[i], node.vals[i]);
}

function each<V>(node: Node<V>, fn: (key: string, val: V) => void): void {
  if (isInner(node)) for (const kid of node.kids) each(kid, fn);
  else for (let i = 0; i < node.keys.length; i++) fn(node.keys[i], node.vals[i]);
}

/**
 * The JSON texts of a node's leaves (`"key":value,...` each) pushed to `out`.
 * A leaf's is kept in `cache` (leaves never change), so the texts kept are
 * the map's text once over; the caller joins them once.
 */
function leafTexts<V>(node: Node<V>, valueText: (v: V) => string, cache: WeakMap<object, string>, out: string[]): void {
  if (isInner(node)) {
    for (const kid of node.kids) leafTexts(kid, valueText, cache, out);
    return;
  }
  let text = cache.get(node);
  if (text === undefined) cache.set(node, (text = node.keys.map((k, i) => `${JSON.stringify(k)}:${valueText(node.vals[i])}`).join(',')));
  if (text !== '') out.push(text);
}

/** Levels below a node (a leaf's is 0): every path from a node to its leaves is as long. */
function heightOf<V>(node: Node<V>): number {
  let h = 0;
  for (let n = node; isInner(n); n = n.kids[0]) h++;
  return h;
}

/**
 * The keys of `b`'s leaves that `a` (another version of the same map) does
 * not share, pushed to `out` with b's values where they differ from a's, at
 * most `budget.left` keys looked at. Shared nodes are skipped by identity: a
 * node one version took unchanged from the other holds the same keys and
 * values, so two versions a few set() apart cost a few paths, not the map.
 * `a` is the node of a's tree at b's place (found by b's first key).
 */
function changed<V>(a: Node<V>, ha: number, b: Node<V>, hb: number, older: SortedMap<V>, budget: { left: number }, out: [string, V][]): boolean {
  if (a === b) return true;
  while (ha > hb && isInner(a)) {
    a = a.kids[b.keys.length ? kidFor(a.keys, b.keys[0]) : 0];
    ha--;
    if (a === b) return true;
  }
  if (!isInner(b)) {
    budget.left -= b.keys.length;
    if (budget.left < 0) return false;
    for (let i = 0; i < b.keys.length; i++) if (older.get(b.keys[i]) !== b.vals[i]) out.push([b.keys[i], b.vals[i]]);
    return true;
  }
  const shared = ha === hb && isInner(a) ? new Set(a.kids) : undefined;
  for (const kid of b.kids) {
    if (shared?.has(kid)) continue;
    const at = ha === hb && isInner(a) ? a.kids[kidFor(a.keys, kid.keys[0] ?? '')] : a;
    if (!changed(at, ha === hb ? ha - 1 : ha, kid, hb - 1, older, budget, out)) return false;
  }
  return true;
}

/** One level of nodes over `nodes`, WIDTH to a node. */
function levelOver<V>(nodes: Node<V>[]): Node<V>[] {
  const out: Node<V>[] = [];
  for (let i = 0; i < nodes.length; i += WIDTH) {
    const kids = nodes.slice(i, i + WIDTH);
    out.push({ keys: kids.map((k) => k.keys[0]), kids });
  }
  return out;
}

/**
 * A persistent map of string keys in code-unit order: set() returns a new
 * map sharing all but one node per level with the old one, which stays as it
 * was. What a large field of an entry is held in (see keyed.ts), so an op on
 * a set of 100,000 elements copies about 100 keys, not 100,000. Written as a
 * plain object by JSON.stringify (toJSON).
 */
export class SortedMap<V> {
  private constructor(
    readonly size: number,
    private readonly root: Node<V>,
    private follower?: Follower<V>,
  ) {}

  /**
   * A map of entries whose keys are sorted and distinct (not checked).
   * @example
   * SortedMap.ofSorted([['a', 1], ['b', 2]]).get('b') // 2
   */
  static ofSorted<V>(entries: readonly (readonly [string, V])[]): SortedMap<V> {
    let nodes: Node<V>[] = [];
    for (let i = 0; i < entries.length; i += WIDTH) {
      const part = entries.slice(i, i + WIDTH);
      nodes.push({ keys: part.map((e) => e[0]), vals: part.map((e) => e[1]) });
    }
    if (nodes.length === 0) nodes.push({ keys: [], vals: [] });
    while (nodes.length > 1) nodes = levelOver(nodes);
    return new SortedMap(entries.length, nodes[0]);
  }

  get(key: string): V | undefined {
    let node = this.root;
    while (isInner(node)) node = node.kids[kidFor(node.keys, key)];
    const i = lowerBound(node.keys, key);
    return node.keys[i] === key ? node.vals[i] : undefined;
  }

  /** A map with `key` set to `val`; this one is unchanged. */
  set(key: string, val: V): SortedMap<V> {
    const added = { yes: false };
    const nodes = put(this.root, key, val, added);
    const root = nodes.length === 1 ? nodes[0] : { keys: nodes.map((n) => n.keys[0]), kids: nodes };
    return new SortedMap(this.size + (added.yes ? 1 : 0), root, this.follower?.set(key, val));
  }

  /**
   * The entries of this map that `older` lacks or holds another value for,
   * where this map was made from `older` by set() (or the other way): the
   * nodes they share are not walked, so a few set() apart cost a few paths.
   * Undefined past `limit` keys looked at (maps built apart share nothing).
   * @example
   * const b = a.set('x', 1); b.changedSince(a, 100) // [['x', 1]]
   */
  changedSince(older: SortedMap<V>, limit: number): [string, V][] | undefined {
    const out: [string, V][] = [];
    const ok = changed(older.root, heightOf(older.root), this.root, heightOf(this.root), older, { left: limit }, out);
    return ok ? out : undefined;
  }

  /** A map without `key`; this one is unchanged (the same map when it has no such key). */
  delete(key: string): SortedMap<V> {
    const root = remove(this.root, key);
    if (root === this.root) return this;
    return new SortedMap(this.size - 1, root ?? { keys: [], vals: [] }, this.follower?.delete(key));
  }

  /**
   * The follower kept beside this map, made by `make` from its keys and values (in key order) at
   * the first ask; the maps set() and delete() make from this one carry it
   * on, changed with them. One follower per map: every caller must make the
   * same kind (a map is only ever one kind of field's).
   */
  follow<F extends Follower<V>>(make: (keys: string[], vals: V[]) => F): F {
    if (!this.follower) {
      const keys: string[] = [];
      const vals: V[] = [];
      each(this.root, (k, v) => { keys.push(k); vals.push(v); });
      this.follower = make(keys, vals);
    }
    return this.follower as F;
  }

  /** The least measure of the map's entries (null when empty): a few paths past a version measured before. */
  least<M>(m: Measure<V, M>): M | null {
    return leastOf(this.root, m);
  }

  /**
   * Each entry whose measure is older than `than`, in key order; a subtree
   * whose least measure is not older is skipped: a reset that drops a few
   * elements of a set of 100,000 visits the paths to them, not the set.
   */
  visitOlder<M>(than: M, m: Measure<V, M>, fn: (key: string, val: V) => void): void {
    older(this.root, than, m, fn);
  }

  /** The entries in key order. */
  entries(): [string, V][] {
    const out: [string, V][] = [];
    each(this.root, (k, v) => out.push([k, v]));
    return out;
  }

  /**
   * The map's JSON text, keys in order. The text of each leaf is kept in
   * `cache` (one per `valueText`), so the text of a map one set() away from
   * one written before serializes one leaf, and joins the rest: a record
   * file rewriting a set of 100,000 elements after one add copies kept texts.
   */
  jsonText(valueText: (v: V) => string, cache: WeakMap<object, string>): string {
    const out: string[] = [];
    leafTexts(this.root, valueText, cache, out);
    return `{${out.join(',')}}`;
  }

  /** The map as a plain object (null prototype: a `__proto__` key stays a key), for JSON. */
  toJSON(): Record<string, V> {
    const out: Record<string, V> = Object.create(null);
    each(this.root, (k, v) => { out[k] = v; });
    return out;
  }
}

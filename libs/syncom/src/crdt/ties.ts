import { canonicalJson } from '../op/canonical';
import type { Entry } from './entry';

/** A value's JSON text, '' for one JSON has no text for (sorting below every text). */
const textOf = (x: unknown): string => JSON.stringify(x) ?? '';

/** The canonical text of an object or array; a scalar's JSON text is canonical already. */
const canonicalOf = (x: unknown, text: string): string => (typeof x === 'object' && x !== null ? canonicalJson(x) : text);

/**
 * A value's JSON text and (made when first asked) its canonical text, kept
 * per value held in a register (by its field, which never changes: a
 * string has no identity of its own). A peer may sign any number of ops
 * stamped as a held value and losing to it: each made the held value's
 * texts anew, 300 KB an op for a value of 300 KB (docs/security.md).
 */
interface Texts { text: string; canonical?: string }
const heldTexts = new WeakMap<object, Texts>();

function textsOf(x: unknown, holder: object | undefined): Texts {
  let t = holder && heldTexts.get(holder);
  if (!t) {
    t = { text: textOf(x) };
    if (holder) heldTexts.set(holder, t);
  }
  return t;
}

const canonicalTextOf = (x: unknown, t: Texts): string => (t.canonical ??= canonicalOf(x, t.text));

/** An object's own keys, kept past KEEP_KEYS: values in entries never change, and a held object of 20,000 keys was listed at each tie. */
const keptKeys = new WeakMap<object, string[]>();
/** Keys listed again each time: a few cost less than a kept list for every object an honest join compares. */
const KEEP_KEYS = 64;

function keysOf(x: object): string[] {
  let k = keptKeys.get(x);
  if (!k) {
    k = Object.keys(x);
    if (k.length > KEEP_KEYS) keptKeys.set(x, k);
  }
  return k;
}

const isPlain = (x: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null || Array.isArray(x);
};

/**
 * Whether two values have one JSON text, by a walk that stops at the first
 * difference and makes no text: false sends compareValues to the texts, so
 * it may say false for values that serialize alike (NaN, a Date), never true
 * for ones that do not. The tie every honest join meets (one write held on
 * both sides) costs this walk: making both texts cost it about 30 times the
 * join of a record of object values.
 */
function isSameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || !isPlain(a) || !isPlain(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = keysOf(a);
  const kb = keysOf(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i] || !isSameJson(ra[ka[i]], rb[ka[i]])) return false;
  return true;
}

/**
 * A total order on field values: by canonical JSON text (code units), then
 * by JSON text, so values differing in key order alone are ordered too; 0
 * when both serialize alike. What settles two contents stamped alike, which
 * an honest node never makes (CLK-4) but a peer can sign: with the winner
 * left to argument or arrival order, two nodes holding the same ops kept
 * different values (CLK-2). Canonical first: a path that reorders a value's
 * keys must not change which value wins.
 * @example
 * compareValues({ b: 1, a: 2 }, { a: 3 }) // -1: '{"a":2,"b":1}' < '{"a":3}'
 * compareValues(held.val, value, { a: held }) // held: a register field, whose texts are kept
 */
export function compareValues(a: unknown, b: unknown, holders: { a?: object; b?: object } = {}): number {
  if (isSameJson(a, b)) return 0;
  const ta = textsOf(a, holders.a);
  const tb = textsOf(b, holders.b);
  const x = ta.text;
  const y = tb.text;
  if (x === y) return 0;
  const cx = canonicalTextOf(a, ta);
  const cy = canonicalTextOf(b, tb);
  if (cx !== cy) return cx < cy ? -1 : 1;
  return x < y ? -1 : 1;
}

/**
 * Compare the marks of two resets stamped alike (a write and a delete, or
 * two writes of different schema versions, signed with one stamp): a delete
 * outranks a write, then the higher meta.v (none lowest). Like
 * compareValues, only a peer signing two ops with one stamp needs it.
 */
export function compareMarks(a: Pick<Entry, 'del' | 'v'>, b: Pick<Entry, 'del' | 'v'>): number {
  const del = (a.del ? 1 : 0) - (b.del ? 1 : 0);
  return del || (a.v ?? -1) - (b.v ?? -1);
}

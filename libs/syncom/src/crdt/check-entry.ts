import { depthWithin, MAX_VALUE_DEPTH } from '../op/shape';
import type { Entry, Field } from './entry';
import { keyedValues } from './keyed';
import { elementTags } from './tags';
import { isTag, stampOfTag } from './stamp';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

const isObj = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype;

function isStamp(x: unknown): boolean {
  return Array.isArray(x) && x.length === 2 && Number.isSafeInteger(x[0]) && (x[0] as number) >= 0
    && typeof x[1] === 'string' && x[1].length > 0 && x[1].length <= 128;
}

const isTags = (x: unknown) => Array.isArray(x) && x.every(isTag);

function isCounter(by: unknown): boolean {
  if (!isObj(by)) return false;
  // A slot's ts is a stamp's: an inc stamped at or before it is taken as counted already.
  return Object.entries(by).every(([o, s]) => !FORBIDDEN.has(o) && Array.isArray(s) && s.length === 2
    && Number.isFinite(s[0]) && Number.isSafeInteger(s[1]) && (s[1] as number) >= 0);
}

function isSet(el: unknown): boolean {
  if (!isObj(el)) return false;
  return Object.entries(el).every(([text, e]) => !FORBIDDEN.has(text) && isObj(e) && isTags(e.add) && isTags(e.rem)
    && isJsonText(text));
}

/**
 * A JSON string with nothing JSON.stringify would escape (no quote, backslash, control character or surrogate): its
 * own canonical text. Most elements are such strings, and a record file's load checks every element of every set.
 */
const PLAIN_STRING = /^"[^"\\\u0000-\u001f\ud800-\udfff]*"$/;

// An element's text: canonical JSON of a value no deeper than a field value may be.
function isJsonText(text: string): boolean {
  if (PLAIN_STRING.test(text)) return true;
  try {
    const value: unknown = JSON.parse(text);
    return depthWithin(value, MAX_VALUE_DEPTH) && JSON.stringify(value) === text;
  } catch {
    return false;
  }
}

function isField(f: unknown): f is Field {
  if (!isObj(f)) return false;
  // A peer's text may hold 1e400, which parses to Infinity where this node's own files would say null.
  if (f.k === 'r') return isStamp(f.s) && 'val' in f && depthWithin(f.val, MAX_VALUE_DEPTH, true);
  if (f.k === 'c') return isCounter(f.by);
  return f.k === 's' && isSet(f.el);
}

/**
 * Whether an untrusted value (a snapshot page's entry, a merge op's data) is
 * an entry for `id`. Never throws.
 */
export function isEntry(x: unknown, id: string): x is Entry {
  if (!isObj(x) || x.id !== id || !isStamp(x.latest) || !isObj(x.fields)) return false;
  if (x.reset !== undefined && !isStamp(x.reset)) return false;
  if (x.purged !== undefined && !isStamp(x.purged)) return false;
  if (x.del !== undefined && x.del !== true) return false;
  if (x.v !== undefined && !(Number.isSafeInteger(x.v) && (x.v as number) >= 0)) return false;
  return Object.entries(x.fields).every(([name, f]) => !FORBIDDEN.has(name) && isField(f));
}

/**
 * The newest ts an entry names anywhere (latest, reset, purge marker, a
 * register's stamp, a counter's slots, a set's add and remove tags): what
 * the skew check of an entry from a peer compares, since any of them would
 * win against this node's later writes (a slot stamped far ahead would have
 * its origin's incs ignored until then). For an entry that passed isEntry.
 */
export function newestTs(e: Entry): number {
  let ts = e.latest[0];
  if (e.reset) ts = Math.max(ts, e.reset[0]);
  if (e.purged) ts = Math.max(ts, e.purged[0]);
  for (const f of keyedValues(e.fields)) {
    if (f.k === 'r') ts = Math.max(ts, f.s[0]);
    else if (f.k === 'c') {
      for (const slot of keyedValues(f.by)) ts = Math.max(ts, slot[1]);
    } else if (f.k === 's') {
      for (const el of keyedValues(f.el)) for (const tag of elementTags(el)) ts = Math.max(ts, stampOfTag(tag)[0]);
    }
  }
  return ts;
}

import type { Stamp } from '../op/types';
import type { CounterField, Field, RegisterField, SetElement, SetField } from './entry';
import { keyedEntries, keyedGet, keyedOf, keyedSize, keyedValues, keyedWith } from './keyed';
import { elementTags, filterTags, tagCount, type Tags, unionTags } from './tags';
import { boundFrom, oldestTs } from './oldest';
import { compareStamps, isOlder, stampOfTag } from './stamp';

/**
 * A sum held to the finite numbers: past ±Number.MAX_VALUE it stays there. A
 * counter's slot is a running total of its origin's incs, each finite, whose
 * sum may not be; an entry holding Infinity is no entry (isEntry), so a
 * snapshot or record file carrying it would be refused whole. Every replica
 * adds a slot's incs in the same order, so they hold the same value.
 */
export function finiteSum(x: number): number {
  return Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, x));
}

/** Tags not older than the reset. */
export function keepTags(tags: Tags, reset: Stamp): Tags {
  return filterTags(tags, (t) => !isOlder(stampOfTag(t), reset));
}

function pruneSet(f: SetField, reset: Stamp): SetField | undefined {
  const el: [string, SetElement][] = [];
  let same = true;
  for (const [text, e] of keyedEntries(f.el)) {
    const add = keepTags(e.add, reset);
    const rem = keepTags(e.rem, reset);
    if (tagCount(add) === 0 && tagCount(rem) === 0) { same = false; continue; }
    if (add !== e.add || rem !== e.rem) same = false;
    el.push([text, add === e.add && rem === e.rem ? e : { add, rem }]);
  }
  if (el.length === 0) return undefined;
  return same ? f : { k: 's', el: keyedOf(el) };
}

/**
 * A counter's slot for an origin's incs in one scope: the origin alone in the
 * global scope (the slot's key before scopes had their own), `origin@scope`
 * otherwise, as the stream key names it.
 */
export function counterSlot(origin: string, scope: string | undefined): string {
  return scope === undefined || scope === '*' ? origin : `${origin}@${scope}`;
}

/** The origin a counter slot belongs to (its key up to the first '@'). */
export function slotOrigin(key: string): string {
  const at = key.indexOf('@');
  return at < 0 ? key : key.slice(0, at);
}

function pruneCounter(f: CounterField, reset: Stamp): CounterField | undefined {
  const all = keyedEntries(f.by);
  const by = all.filter(([key, slot]) => !isOlder([slot[1], slotOrigin(key)], reset));
  if (by.length === 0) return undefined;
  return by.length === all.length ? f : { k: 'c', by: keyedOf(by) };
}

/** A field with every piece of content older than `reset` dropped; undefined when nothing is left. */
export function pruneField(f: Field, reset: Stamp): Field | undefined {
  if (f.k === 'r') return isOlder(f.s, reset) ? undefined : f;
  // Nothing stamped at or before the reset's ts: nothing to walk for.
  if (oldestTs(f) > reset[0]) return f;
  return f.k === 'c' ? pruneCounter(f, reset) : pruneSet(f, reset);
}

/** The newest stamp a field holds, to settle a kind clash between two merged entries. */
export function contentStamp(f: Field): Stamp {
  if (f.k === 'r') return f.s;
  let best: Stamp = [0, ''];
  const consider = (s: Stamp) => { if (compareStamps(s, best) > 0) best = s; };
  if (f.k === 'c') for (const [key, slot] of keyedEntries(f.by)) consider([slot[1], slotOrigin(key)]);
  else for (const e of keyedValues(f.el)) for (const t of elementTags(e)) consider(stampOfTag(t));
  return best;
}

// A join costs the size of the smaller side, not of both: b's members are set into a, or the other way.
function joinCounters(a: CounterField, b: CounterField): CounterField {
  const changes: [string, [number, number]][] = [];
  for (const [o, slot] of keyedEntries(b.by)) {
    const mine = keyedGet(a.by, o);
    if (!mine || slot[1] > mine[1] || (slot[1] === mine[1] && slot[0] > mine[0])) changes.push([o, slot]);
  }
  return changes.length === 0 ? a : boundFrom({ k: 'c', by: keyedWith(a.by, changes) }, a, oldestTs(b));
}

function joinSets(a: SetField, b: SetField): SetField {
  const changes: [string, SetElement][] = [];
  for (const [text, e] of keyedEntries(b.el)) {
    const mine = keyedGet(a.el, text);
    const joined = mine ? { add: unionTags(mine.add, e.add), rem: unionTags(mine.rem, e.rem) } : e;
    if (joined.add !== mine?.add || joined.rem !== mine?.rem) changes.push([text, joined]);
  }
  return changes.length === 0 ? a : boundFrom({ k: 's', el: keyedWith(a.el, changes) }, a, oldestTs(b));
}

const fieldMap = (f: Field) => (f.k === 'c' ? f.by : f.k === 's' ? f.el : {});

/** Join two states of one field (commutative, associative, idempotent but for a kind clash). */
export function joinField(a: Field, b: Field): Field {
  if (a.k !== b.k) {
    const c = compareStamps(contentStamp(a), contentStamp(b));
    return c > 0 || (c === 0 && a.k > b.k) ? a : b;
  }
  if (a.k === 'r') return compareStamps(a.s, (b as RegisterField).s) >= 0 ? a : b;
  const [small, large] = keyedSize(fieldMap(a)) <= keyedSize(fieldMap(b)) ? [a, b] : [b, a];
  if (a.k === 'c') return joinCounters(large as CounterField, small as CounterField);
  return joinSets(large as SetField, small as SetField);
}

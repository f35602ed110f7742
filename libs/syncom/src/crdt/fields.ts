import type { Stamp } from '../op/types';
import type { CounterField, Field, RegisterField, SetElement, SetField } from './entry';
import { type Keyed, keyedEntries, keyedGet, keyedOf, keyedSize, keyedValues, keyedWith, SMALL } from './keyed';
import { filterTags, tagCount, type Tags, TagSet, unionTags } from './tags';
import { boundFrom, oldestTs } from './oldest';
import { type Measure, SortedMap } from './sorted-map';
import { compareStamps, isOlder, stampOfTag } from './stamp';
import { compareValues } from './ties';

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

/** Tags not older than the reset: a TagSet's through the stamps its nodes keep. */
export function keepTags(tags: Tags, reset: Stamp): Tags {
  if (tags instanceof TagSet) return tags.withoutOlder(reset);
  return filterTags(tags, (t) => !isOlder(stampOfTag(t), reset));
}

/** A set element with its tags older than `reset` dropped: itself when none is, undefined when none is left. */
function keptElement(e: SetElement, reset: Stamp): SetElement | undefined {
  const add = keepTags(e.add, reset);
  const rem = keepTags(e.rem, reset);
  if (tagCount(add) === 0 && tagCount(rem) === 0) return undefined;
  return add === e.add && rem === e.rem ? e : { add, rem };
}

function pruneSet(f: SetField, reset: Stamp): SetField | undefined {
  const el: [string, SetElement][] = [];
  let same = true;
  for (const [text, e] of keyedEntries(f.el)) {
    const kept = keptElement(e, reset);
    if (kept !== e) same = false;
    if (kept) el.push([text, kept]);
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
  const by = all.filter(([key, slot]) => !isOlder(SLOT_STAMPS.of(key, slot), reset));
  if (by.length === 0) return undefined;
  return by.length === all.length ? f : { k: 'c', by: keyedOf(by) };
}

/** Stamps measured by age: `a` older than `b`. */
const olderStamp = (a: Stamp, b: Stamp) => compareStamps(a, b) < 0;

/** What a set element holds no content at: older than every stamp, so any reset drops it. */
const EMPTY_STAMP: Stamp = [-Infinity, ''];

/** The oldest of some stamps; null for none. */
const oldestOf = (stamps: Iterable<Stamp | null>): Stamp | null => {
  let least: Stamp | null = null;
  for (const s of stamps) if (s !== null && (least === null || olderStamp(s, least))) least = s;
  return least;
};

/** A set element's oldest tag (add or remove), by stamp: a TagSet's kept in its nodes, not walked. */
const ELEMENT_STAMPS: Measure<SetElement, Stamp> = {
  of: (_text, e) => oldestOf([e.add, e.rem].map((tags) => (tags instanceof TagSet ? tags.oldest() : oldestOf(tags.map(stampOfTag))))) ?? EMPTY_STAMP,
  older: olderStamp,
  cache: new WeakMap(),
};

/** A counter slot's stamp: its latest inc's ts, and its origin. */
const SLOT_STAMPS: Measure<[number, number], Stamp> = {
  of: (key, slot) => [slot[1], slotOrigin(key)],
  older: olderStamp,
  cache: new WeakMap(),
};

/**
 * A large map (a sorted map) with every entry older than `reset` by
 * `measure` replaced by `keep` of it (deleted when undefined): its nodes
 * keep their entries' oldest stamp, so only the paths to what the reset
 * drops are walked. Before, a reset dropping one element of a set of
 * 100,000 walked and rebuilt the set (81 ms; docs/security.md).
 */
function pruneSorted<V>(map: SortedMap<V>, reset: Stamp, measure: Measure<V, Stamp>, keep: (key: string, v: V) => V | undefined): SortedMap<V> | Record<string, V> | undefined {
  let out = map;
  map.visitOlder(reset, measure, (key, v) => {
    const kept = keep(key, v);
    out = kept === undefined ? out.delete(key) : out.set(key, kept);
  });
  if (out === map) return map;
  if (out.size === 0) return undefined;
  return out.size <= SMALL ? Object.fromEntries(out.entries()) : out;
}

/** A map's oldest entry by `measure`: a sorted map's kept in its nodes, a plain one's (32 keys at most) walked. */
const oldestIn = <V>(m: Keyed<V>, measure: Measure<V, Stamp>): Stamp | null =>
  m instanceof SortedMap ? m.least(measure) : oldestOf(keyedEntries(m).map(([k, v]) => measure.of(k, v)));

/** A field's oldest content by stamp: a register's own, else its map's. */
export function oldestStamp(f: Field): Stamp {
  if (f.k === 'r') return f.s;
  return (f.k === 's' ? oldestIn(f.el, ELEMENT_STAMPS) : oldestIn(f.by, SLOT_STAMPS)) ?? EMPTY_STAMP;
}

/** A record's fields by their oldest content (oldestStamp): what a reset of a record of many fields walks by. */
export const FIELD_STAMPS: Measure<Field, Stamp> = { of: (_name, f) => oldestStamp(f), older: olderStamp, cache: new WeakMap() };

/**
 * A large map pruned to `reset` through the stamps its nodes keep (see
 * pruneSorted), for merge.ts's fields of a record of many fields.
 */
export function pruneSortedFields(fields: SortedMap<Field>, reset: Stamp): Keyed<Field> {
  return pruneSorted(fields, reset, FIELD_STAMPS, (_name, f) => pruneField(f, reset)) ?? {};
}

/** A field with every piece of content older than `reset` dropped; undefined when nothing is left. */
export function pruneField(f: Field, reset: Stamp): Field | undefined {
  if (f.k === 'r') return isOlder(f.s, reset) ? undefined : f;
  if (f.k === 's' && f.el instanceof SortedMap) {
    const el = pruneSorted(f.el, reset, ELEMENT_STAMPS, (_text, e) => keptElement(e, reset));
    return el === f.el ? f : el && { k: 's', el };
  }
  if (f.k === 'c' && f.by instanceof SortedMap) {
    const by = pruneSorted(f.by, reset, SLOT_STAMPS, () => undefined);
    return by === f.by ? f : by && { k: 'c', by };
  }
  // Nothing stamped at or before the reset's ts: nothing to walk for.
  if (oldestTs(f) > reset[0]) return f;
  return f.k === 'c' ? pruneCounter(f, reset) : pruneSet(f, reset);
}

/** Stamps measured the other way round: a map's "least" by it is its newest. */
const newerStamp = (a: Stamp, b: Stamp) => compareStamps(a, b) > 0;

/** The newest of some stamps; null for none. */
const newestOf = (stamps: Iterable<Stamp | null>): Stamp | null => {
  let most: Stamp | null = null;
  for (const s of stamps) if (s !== null && (most === null || newerStamp(s, most))) most = s;
  return most;
};

/** Tag arrays' newest stamps, each array read once: entries never change an array they hold. */
const arrayNewest = new WeakMap<readonly string[], Stamp | null>();

function newestTag(tags: Tags): Stamp | null {
  if (tags instanceof TagSet) return tags.newest();
  let s = arrayNewest.get(tags);
  if (s === undefined) arrayNewest.set(tags, (s = newestOf(tags.map(stampOfTag))));
  return s;
}

const ELEMENT_NEWEST: Measure<SetElement, Stamp | null> = {
  of: (_text, e) => newestOf([newestTag(e.add), newestTag(e.rem)]),
  older: (a, b) => a !== null && (b === null || newerStamp(a, b)),
  cache: new WeakMap(),
};
const SLOT_NEWEST: Measure<[number, number], Stamp> = { of: SLOT_STAMPS.of, older: newerStamp, cache: new WeakMap() };

/** Fields' newest stamps, for a plain map (a large one only as a peer's page gave it: a change makes it sorted). */
const fieldNewest = new WeakMap<Field, Stamp | null>();

function newestIn<V, M extends Stamp | null>(m: Keyed<V>, measure: Measure<V, M>): Stamp | null {
  return m instanceof SortedMap ? m.least(measure) : newestOf(keyedEntries(m).map(([k, v]) => measure.of(k, v)));
}

/**
 * The newest stamp a field holds, to settle a kind clash between two merged
 * entries. A large map's is kept in its nodes and an element's tags' in
 * theirs, so a clash costs a few paths of the map it lands on: a walk of
 * every tag made each merge op clashing with a set of 100,000 elements cost
 * the set (docs/security.md; test/hostile/op-cost.spec.ts).
 */
export function contentStamp(f: Field): Stamp {
  if (f.k === 'r') return f.s;
  let s = fieldNewest.get(f);
  if (s === undefined) fieldNewest.set(f, (s = f.k === 'c' ? newestIn(f.by, SLOT_NEWEST) : newestIn(f.el, ELEMENT_NEWEST)));
  // The floor a walk started from: no stamp below it counts (a field of nothing is [0, '']).
  return s === null || compareStamps(s, [0, '']) <= 0 ? [0, ''] : s;
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
  // An exact stamp tie (a peer signing two writes alike) goes to the greater value, whatever the argument order.
  if (a.k === 'r') return (compareStamps(a.s, (b as RegisterField).s) || compareValues(a.val, (b as RegisterField).val, { a, b })) >= 0 ? a : b;
  const [small, large] = keyedSize(fieldMap(a)) <= keyedSize(fieldMap(b)) ? [a, b] : [b, a];
  if (a.k === 'c') return joinCounters(large as CounterField, small as CounterField);
  return joinSets(large as SetField, small as SetField);
}

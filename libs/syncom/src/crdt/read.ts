import { type Entry, type Field, type SetField } from './entry';
import { finiteSum } from './fields';
import { keyedGet, sortedEntries } from './keyed';
import { tagList, tagLookup } from './tags';

function readSet(f: SetField): unknown[] {
  const out: unknown[] = [];
  // Sets read sorted by element JSON text, code-unit order (KIND-8).
  for (const [text, e] of sortedEntries(f.el)) {
    const removed = tagLookup(e.rem);
    if (tagList(e.add).some((t) => !removed.has(t))) out.push(JSON.parse(text));
  }
  return out;
}

/** The value a field reads as: a register's value, a counter's sum, a set's sorted elements. */
export function readField(f: Field): unknown {
  if (f.k === 'r') return f.val;
  if (f.k === 'c') {
    let sum = 0;
    // In slot order, not insertion order (a merge may insert slots in another order): floating-point sums
    // depend on their order, and converged replicas read the same value.
    for (const [, slot] of sortedEntries(f.by)) sum = finiteSum(sum + slot[0]);
    return sum;
  }
  return readSet(f);
}

/**
 * The record's fields as an application sees them, in field-name order so
 * that converged replicas read byte-identical records whatever order their
 * ops arrived in. Shares register values with the entry.
 */
export function readEntry(e: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of sortedEntries(e.fields)) out[name] = readField(f);
  return out;
}

/** The live add tags of each listed element that the entry holds (what a remove names, KIND-6). */
export function seenTags(e: Entry | undefined, field: string, elements: unknown[]): [unknown, string[]][] {
  const f = e && keyedGet(e.fields, field);
  if (!f || f.k !== 's') return [];
  const out: [unknown, string[]][] = [];
  const seen = new Set<string>();
  for (const x of elements) {
    const text = JSON.stringify(x);
    if (seen.has(text)) continue;
    seen.add(text);
    const el = keyedGet(f.el, text);
    const removed = el && tagLookup(el.rem);
    const live = el && removed ? tagList(el.add).filter((t) => !removed.has(t)) : [];
    // The element as its JSON text reads (-0 as 0, a Date as its string): what the log and every peer read.
    if (live.length) out.push([JSON.parse(text) as unknown, live]);
  }
  return out;
}

/**
 * The key under which a lazyRecord answers, without reading the field, a
 * register's value or undefined for a field of another kind (or none): what
 * a rule that takes only a string (scopeByField) needs, where reading a set
 * field of 100,000 elements to find it no string cost each op that much.
 */
export const REGISTER_VALUE: unique symbol = Symbol('syncom.registerValue');

/**
 * The record's fields as readEntry gives them, each read when first touched:
 * what a scope function is given, which reads a field or two of a record
 * that may hold 100,000 set elements; reading them all on every op made each
 * op on a scoped host cost the record's size. Enumerating it (Object.keys,
 * a spread, JSON) reads every field, in name order, as readEntry does.
 * Its prototype is null: a field the record lacks reads undefined, never a
 * member of Object.prototype (`toString`, `constructor`) taken for a field.
 */
export function lazyRecord(e: Entry): Record<string, unknown> {
  const target = Object.create(null) as Record<string, unknown>;
  const touch = (name: string | symbol): boolean => {
    if (typeof name !== 'string' || Object.hasOwn(target, name)) return Object.hasOwn(target, name);
    const f = keyedGet(e.fields, name);
    if (f) target[name] = readField(f);
    return f !== undefined;
  };
  // A value set on the view (an update's fields laid over the record) is the field's, whatever the entry holds.
  const registerValue = (name: string): unknown => {
    if (Object.hasOwn(target, name)) return target[name];
    const f = keyedGet(e.fields, name);
    return f?.k === 'r' ? f.val : undefined;
  };
  return new Proxy(target, {
    get: (t, name, receiver) => (name === REGISTER_VALUE ? registerValue : (touch(name), Reflect.get(t, name, receiver))),
    has: (t, name) => touch(name) || Reflect.has(t, name),
    getOwnPropertyDescriptor: (t, name) => (touch(name), Reflect.getOwnPropertyDescriptor(t, name)),
    ownKeys: (t) => {
      const names = sortedEntries(e.fields).map(([name]) => (touch(name), name));
      // Keys a scope function added itself come after the fields.
      return [...names, ...Reflect.ownKeys(t).filter((k) => typeof k !== 'string' || keyedGet(e.fields, k) === undefined)];
    },
  });
}

import { type Entry, type Field, keyedGet, keyedSize, readField } from '../crdt';
import { sortedEntries } from '../crdt/keyed';
import type { RecordView } from '../schema/types';

/**
 * A number for each field state a type change was judged on. A field's state
 * is immutable (an op that changes a field makes a new one, crdt/apply.ts,
 * and shares the others), so the same object is the same value: a record
 * flipped back to a type it had, its other fields untouched, reads the same
 * numbers, and a field changed since reads a new one.
 */
const numbers = new WeakMap<Field, number>();
let counted = 0;

function numberOf(f: Field): number {
  let n = numbers.get(f);
  if (n === undefined) numbers.set(f, (n = ++counted));
  return n;
}

/**
 * The record `e` with an update's `fields` laid over it, as a schema judges a
 * type change (Schema.judgeRetype): the fields in the order a read lists them
 * (the record's by name, then the update's new ones, as mergedView's), each
 * read only when asked, and each field's state named without reading it: an
 * update's value by its JSON, a record's field by its state's number.
 */
export function retypeView(e: Entry, fields: Record<string, unknown>): RecordView {
  const added = Object.keys(fields).filter((name) => keyedGet(e.fields, name) === undefined);
  const set = (name: string) => Object.hasOwn(fields, name);
  return {
    size: keyedSize(e.fields) + added.length,
    names: () => [...sortedEntries(e.fields).map(([name]) => name), ...added],
    has: (name) => set(name) || keyedGet(e.fields, name) !== undefined,
    read: (name) => {
      if (set(name)) return fields[name];
      const f = keyedGet(e.fields, name);
      return f && readField(f);
    },
    state: (name) => {
      if (set(name)) return `=${JSON.stringify(fields[name])}`;
      const f = keyedGet(e.fields, name);
      return f ? `#${numberOf(f)}` : '';
    },
  };
}

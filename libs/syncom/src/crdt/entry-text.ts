import type { CounterField, Entry, Field } from './entry';
import type { Keyed } from './keyed';
import { SortedMap } from './sorted-map';

const elementTexts = new WeakMap<object, string>();
const slotTexts = new WeakMap<object, string>();
const fieldTexts = new WeakMap<object, string>();

const json = (x: unknown) => JSON.stringify(x);

/** A map's JSON text: a sorted map's joined from its kept leaf texts (`cache`), a plain one's made. */
export function mapText<V>(m: Keyed<V>, valueText: (v: V) => string, cache: WeakMap<object, string>): string {
  if (m instanceof SortedMap) return m.jsonText(valueText, cache);
  if (valueText === json) return JSON.stringify(m);
  return `{${Object.entries(m).map(([k, v]) => `${json(k)}:${valueText(v)}`).join(',')}}`;
}

/** A counter's slots as JSON text, keys in order when sorted: also their canonical text (a slot is [total, ts]). */
export function slotsText(by: CounterField['by']): string {
  return mapText(by, json, slotTexts);
}

function fieldText(f: Field): string {
  if (f.k === 'r') return json(f);
  if (f.k === 'c') return `{"k":"c","by":${slotsText(f.by)}}`;
  return `{"k":"s","el":${mapText(f.el, json, elementTexts)}}`;
}

/** Whether any map of the entry is a sorted map (see keyed.ts): only such an entry has texts kept for it. */
export function holdsSorted(e: Entry): boolean {
  const fields = e.fields;
  if (fields instanceof SortedMap) return true;
  // A loop over the keys, not Object.values: every record file and digest asks this of every entry.
  for (const name in fields) {
    const f = (fields as Record<string, Field>)[name];
    if ((f.k === 'c' && f.by instanceof SortedMap) || (f.k === 's' && f.el instanceof SortedMap)) return true;
  }
  return false;
}

/**
 * An entry's JSON text, as JSON.stringify gives it but for member order
 * (a sorted map's keys in code-unit order). A large map's text is joined
 * from the texts kept for its leaves: a record file rewriting a record after
 * an op serializes the leaf the op changed and copies the rest, rather than
 * serializing it all again (about 75 ms for a set of 100,000 elements).
 */
export function entryText(e: Entry): string {
  if (!holdsSorted(e)) return JSON.stringify(e);
  const { fields, ...marks } = e;
  const head = JSON.stringify(marks);
  return `${head.slice(0, -1)},"fields":${mapText(fields, fieldText, fieldTexts)}}`;
}

/** The JSON text of a list of entries (a record file's). */
export function entriesText(entries: readonly Entry[]): string {
  if (!entries.some(holdsSorted)) return JSON.stringify(entries);
  return `[${entries.map(entryText).join(',')}]`;
}

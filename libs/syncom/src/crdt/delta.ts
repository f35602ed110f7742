import type { CounterField, Entry, Field, SetElement, SetField } from './entry';
import { holdsSorted } from './entry-text';
import { type Keyed, keyedEntries, keyedGet, keyedOf, keyedSize } from './keyed';
import { SortedMap } from './sorted-map';
import { tagList, type Tags, TagSet } from './tags';

/**
 * Whether an entry is large enough for a record file to hold it as parts
 * (entryDelta) rather than whole after each batch: a map past 32 keys (see
 * keyed.ts), or an element's tags past 32 (a TagSet).
 */
export function isLargeEntry(e: Entry): boolean {
  if (holdsSorted(e)) return true;
  for (const f of Object.values(e.fields as Record<string, Field>)) {
    if (f.k !== 's') continue;
    for (const el of Object.values(f.el as Record<string, SetElement>)) if (el.add instanceof TagSet || el.rem instanceof TagSet) return true;
  }
  return false;
}

/** Keys looked at, at most, per map diffed: past it the entry is written whole (maps built apart share nothing). */
const budgetOf = (size: number) => Math.max(256, size >> 3);

/** The entries of `after` that `before` lacks or holds another value for; undefined when the diff would cost more than the map. */
function changedEntries<V>(before: Keyed<V>, after: Keyed<V>): [string, V][] | undefined {
  if (before === after) return [];
  if (after instanceof SortedMap) return before instanceof SortedMap ? after.changedSince(before, budgetOf(after.size)) : undefined;
  // A plain map holds 32 keys at most: each is looked at.
  return keyedEntries(after).filter(([k, v]) => keyedGet(before, k) !== v);
}

/** The tags of `after` that `before` lacks (both grow by union alone); all of them when they cannot be told apart cheaply. */
function tagsAdded(before: Tags, after: Tags): readonly string[] {
  if (before === after) return [];
  if (after instanceof TagSet && before instanceof TagSet) return after.addedSince(before, budgetOf(after.size)) ?? after.list();
  return tagList(after);
}

function elementDelta(before: SetElement | undefined, after: SetElement): SetElement | undefined {
  if (!before) return { add: tagList(after.add), rem: tagList(after.rem) };
  const add = tagsAdded(before.add, after.add);
  const rem = tagsAdded(before.rem, after.rem);
  return add.length || rem.length ? { add, rem } : undefined;
}

/** The part of counter or set `after` that `before` (same kind) lacks; undefined when they share nothing to tell it by. */
function fieldDelta(before: Field, after: Field): Field | undefined {
  if (after.k === 'c') {
    const by = changedEntries((before as CounterField).by, after.by);
    return by && { k: 'c', by: keyedOf(by) };
  }
  if (after.k !== 's') return undefined;
  const before_ = before as SetField;
  const els = changedEntries(before_.el, after.el);
  if (!els) return undefined;
  const out: [string, SetElement][] = [];
  for (const [text, el] of els) {
    const d = elementDelta(keyedGet(before_.el, text), el);
    if (d) out.push([text, d]);
  }
  return { k: 's', el: keyedOf(out) };
}

/**
 * A part of `after` that, joined with `before`, gives `after` back: its
 * marks and latest stamp, and of its fields only what `before` lacks (the
 * slots, elements and tags a batch added, a register written). `after` is
 * `before` moved on by ops and joins, sharing the maps' unchanged nodes with
 * it, so the part costs what changed, not the record: a record file holds a
 * set of 100,000 elements as one whole entry and the parts each batch adds
 * (RecordStore), not the whole set again per batch. A register, or a field
 * that changed kind, goes whole. Undefined when a part would not do: a purge,
 * or maps built apart (their diff would cost more than the entry's text).
 * Field content `before` holds and `after` pruned is
 * not named: the part carries `after`'s reset, which prunes it in the join.
 * @example
 * const after = applyOp(before, add).entry; entryDelta(before, after) // { id, latest, fields: { tags: { k: 's', el: { '"x"': … } } } }
 */
export function entryDelta(before: Entry, after: Entry): Entry | undefined {
  if (before.purged || after.purged || before.id !== after.id) return undefined;
  const names = changedEntries(before.fields, after.fields);
  if (!names) return undefined;
  const fields: [string, Field][] = [];
  for (const [name, f] of names) {
    const was = keyedGet(before.fields, name);
    if (!was || was.k !== f.k || f.k === 'r') {
      fields.push([name, f]);
      continue;
    }
    const part = fieldDelta(was, f);
    // Maps built apart: the part would be the field whole, and the entry is best written whole.
    if (!part) return undefined;
    // A set or counter that only lost content (pruned by the reset the part carries) adds nothing.
    if (keyedSize(part.k === 'c' ? part.by : (part as SetField).el) > 0) fields.push([name, part]);
  }
  const out: Entry = { id: after.id, latest: after.latest, fields: keyedOf(fields) };
  if (after.reset) out.reset = after.reset;
  if (after.del) out.del = true;
  if (after.v !== undefined) out.v = after.v;
  return out;
}

import { type Entry, type Field, own, type SetField } from './entry';
import { finiteSum, tagLookup } from './fields';

function readSet(f: SetField): unknown[] {
  const texts: string[] = [];
  for (const [text, e] of Object.entries(f.el)) {
    const removed = tagLookup(e.rem);
    if (e.add.some((t) => !removed.has(t))) texts.push(text);
  }
  // Sets read sorted by element JSON text, code-unit order (KIND-8).
  return texts.sort().map((t) => JSON.parse(t));
}

/** The value a field reads as: a register's value, a counter's sum, a set's sorted elements. */
export function readField(f: Field): unknown {
  if (f.k === 'r') return f.val;
  if (f.k === 'c') {
    let sum = 0;
    // In slot order, not insertion order (a merge may insert slots in another order): floating-point sums
    // depend on their order, and converged replicas read the same value.
    for (const key of Object.keys(f.by).sort()) sum = finiteSum(sum + f.by[key][0]);
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
  for (const name of Object.keys(e.fields).sort()) out[name] = readField(e.fields[name]);
  return out;
}

/** The live add tags of each listed element that the entry holds (what a remove names, KIND-6). */
export function seenTags(e: Entry | undefined, field: string, elements: unknown[]): [unknown, string[]][] {
  const f = e && own(e.fields, field);
  if (!f || f.k !== 's') return [];
  const out: [unknown, string[]][] = [];
  const seen = new Set<string>();
  for (const x of elements) {
    const text = JSON.stringify(x);
    if (seen.has(text)) continue;
    seen.add(text);
    const el = own(f.el, text);
    const removed = el && tagLookup(el.rem);
    const live = el && removed ? el.add.filter((t) => !removed.has(t)) : [];
    if (live.length) out.push([x, live]);
  }
  return out;
}

/**
 * Packed entries of one origin found in the text of a log line that no
 * longer parses (bit rot in one byte of it makes the whole line JSON no
 * parser takes). The load takes none of them as ops: it only counts the seqs
 * this node's own ones used (load-open.ts, countSeqs), so that a line left a
 * hole does not have this node sign those seqs again.
 *
 * A packed entry is a JSON array whose first slot is its origin (op/pack.ts),
 * and a JSON string never holds an unescaped quote, so `["<origin>",` in the
 * text starts an entry of that origin (or an array of that shape in a
 * payload, which still has to unpack as an entry). Each candidate is
 * walked to its closing bracket, strings skipped, and parsed alone: rot
 * elsewhere in the line leaves it whole.
 */

/** The walk's budget, in characters, per character of the text: a rotted quote makes a walk run on to the end. */
const STEPS_PER_CHAR = 8;

/** Where the array starting at `start` ends (the index after its `]`), or undefined within `limit` characters. */
function arrayEnd(text: string, start: number, limit: number): number | undefined {
  let depth = 0;
  let inString = false;
  const end = Math.min(text.length, start + limit);
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i + 1;
  }
  return undefined;
}

/** The arrays of `text` that start as a packed entry of `origin` and parse alone, in text order. */
export function salvageEntries(text: string, origin: string): unknown[] {
  const head = `[${JSON.stringify(origin)},`;
  const out: unknown[] = [];
  let budget = text.length * STEPS_PER_CHAR;
  for (let at = text.indexOf(head); at >= 0 && budget > 0; at = text.indexOf(head, at + 1)) {
    const end = arrayEnd(text, at, budget);
    budget -= (end ?? Math.min(text.length, at + budget)) - at;
    if (end === undefined) continue;
    try {
      out.push(JSON.parse(text.slice(at, end)));
    } catch {
      // Rot inside this entry too: nothing to count of it.
    }
  }
  return out;
}

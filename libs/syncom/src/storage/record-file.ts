/**
 * What a record file holds (docs/guarantees.md): its JSON text, whole
 * entries and parts of large ones, and how it is read back.
 */
import { type Entry, entriesText, entryText, isEntry } from '../crdt';

/** How record files hold sealed records (GUAR-19); without one, every entry is plain JSON. */
export interface RecordCipher {
  /** The JSON text of a record file holding `entries`. */
  text(entries: readonly Entry[]): string;
  /** The JSON text of each entry, as text() would hold it (sealed ones under one content key). */
  texts(entries: readonly Entry[]): string[];
  /** One element of a record file: the entry in it and whether it was sealed; undefined when it cannot be opened. */
  open(x: unknown): { entry: unknown; sealed: boolean } | undefined;
}

/** The record files' text when no record is sealed: every entry plain JSON. */
export const plainCipher: RecordCipher = { text: entriesText, texts: (entries) => entries.map(entryText), open: (x) => ({ entry: x, sealed: false }) };

/** JSON nodes roughChars walks at most: past them (16 KB of JSON or more, at 4 characters a node) it says long, and the text is measured. */
const ROUGH_NODES = 4096;

/**
 * About how many characters an entry's JSON text has (strings by length,
 * other leaves as 8), without making it: a batch of long texts asks it of
 * each entry, so that only the few that may be long are serialized again to
 * be measured. Infinity past ROUGH_NODES nodes.
 */
export function roughChars(x: unknown, budget = { left: ROUGH_NODES }): number {
  if (typeof x === 'string') return x.length + 2;
  if (typeof x !== 'object' || x === null) return 8;
  if (--budget.left < 0) return Infinity;
  let n = 2;
  if (Array.isArray(x)) for (const v of x) n += roughChars(v, budget) + 1;
  else for (const k in x) n += k.length + 4 + roughChars((x as Record<string, unknown>)[k], budget);
  return n;
}

/** A record file's element holding a part of an entry (see RecordStore.write), not a whole one. */
export type PartEntry = Entry & { part: true };

/**
 * `part` marked for the record file, `of` (the whole entry it was cut from)
 * beside it, not enumerable: JSON and the cipher write the part alone.
 */
export function asPart(part: Entry, of: Entry): PartEntry & { of: Entry } {
  const out = part as PartEntry & { of: Entry };
  out.part = true;
  Object.defineProperty(out, 'of', { value: of, enumerable: false });
  return out;
}

/** Whether a record file's entry is a part (asPart). */
export const isPart = (e: Entry): e is PartEntry => (e as Partial<PartEntry>).part === true;

/** A part read back, as the entry it is: the mark dropped (reads and digests never see it). */
export function wholeOf(e: PartEntry): Entry {
  const { part: _, ...entry } = e;
  return entry;
}

/**
 * A record file's entries, sealed ones opened (their ids added to `sealed`),
 * and how many of its elements are no entry or cannot be opened: one bad
 * entry costs that record, not the file's others, whose ops the log counts as
 * recorded and would not replay. Undefined when the file is not a JSON array
 * at all (a torn write).
 */
export function parseRecordFile(text: string | undefined, cipher: RecordCipher, sealed: Set<string>): { list: Entry[]; unreadable: number } | undefined {
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(raw)) return undefined;
  const list: Entry[] = [];
  let unreadable = 0;
  for (const x of raw) {
    let o: ReturnType<RecordCipher['open']>;
    try {
      o = cipher.open(x);
    } catch {
      o = undefined;
    }
    const entry = o?.entry as Entry | undefined;
    if (!o || !entry || !isEntry(entry, entry.id)) {
      unreadable++;
      continue;
    }
    if (o.sealed) sealed.add(entry.id);
    list.push(entry);
  }
  return { list, unreadable };
}

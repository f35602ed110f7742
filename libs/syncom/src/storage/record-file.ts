/**
 * What a record file holds (docs/guarantees.md): its JSON text, whole
 * entries and parts of large ones, and how it is read back.
 */
import type { Backend } from '../backend/types';
import { compareStamps, type Entry, entriesText, entryText, heldEntry, isEntry, isHidden, joinEntries } from '../crdt';
import { isScopeName } from '../op/scope-name';
import type { Stamp } from '../op/types';
import { unsummed } from './record-sum';

export const RECORDS_DIR = 'records';

/** A record file's path: records/<n>.json. */
export const fileName = (n: number) => `${RECORDS_DIR}/${n}.json`;

/** How record files hold sealed records (GUAR-19); without one, every entry is plain JSON. */
export interface RecordCipher {
  /** The JSON text of a record file holding `entries`. */
  text(entries: readonly Entry[]): string;
  /** The JSON text of each entry, as text() would hold it (sealed ones under one content key). */
  texts(entries: readonly Entry[]): string[];
  /**
   * One element of a record file: the entry in it and whether it was sealed;
   * undefined when it cannot be opened. A reader without the seal key (the
   * CLI) answers `{ entry: undefined, sealed: true }` for a sealed one: closed,
   * not damaged.
   */
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
 * A sealed record's element (`{ id, sealed }`) this process could not open
 * (a platform without sealing, another key's box), as read: a file rewritten
 * (a merge, a purge's scrub) carries it on as it was, so a process holding
 * the key reads the record again. Dropped, the record was gone for good.
 */
export interface UnopenedElement {
  id: string;
  text: string;
}

/** A record file's text: `text` (a JSON array) with the unopened elements after its own. */
export function withUnopened(text: string, unopened: readonly UnopenedElement[] | undefined): string {
  if (!unopened?.length) return text;
  return `[${[text.slice(1, -1), ...unopened.map((u) => u.text)].filter((t) => t !== '').join(',')}]`;
}

/** What parseRecordFile makes of a record file's text. */
export interface ParsedRecordFile {
  list: Entry[];
  /** Elements that are no entry, or a sealed one that does not open with the key: damage. */
  unreadable: number;
  /** Sealed entries left closed: the reader has no key (RecordCipher.open). */
  closed: number;
  /** The sealed elements among those, closed or unreadable, as read. */
  unopened: UnopenedElement[];
}

/** The id of a sealed record's element, `{ id, sealed }` with the id in clear (sealed/record-cipher.ts). */
function boxedId(x: unknown): string | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const { id, sealed } = x as { id?: unknown; sealed?: unknown };
  return typeof id === 'string' && typeof sealed === 'string' ? id : undefined;
}

/**
 * A record file's entries, sealed ones opened (their ids added to `sealed`),
 * and how many of its elements are no entry or cannot be opened: one bad
 * entry costs that record, not the file's others (the log rebuilds it, see
 * storage/load.ts). `text` is the file's elements, their sum taken off
 * (record-sum.ts, unsummed). Undefined when it is not a JSON array at all.
 */
export function parseRecordFile(text: string | undefined, cipher: RecordCipher, sealed: Set<string>): ParsedRecordFile | undefined {
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(raw)) return undefined;
  const out: ParsedRecordFile = { list: [], unreadable: 0, closed: 0, unopened: [] };
  for (const x of raw) {
    let o: ReturnType<RecordCipher['open']>;
    try {
      o = cipher.open(x);
    } catch {
      o = undefined;
    }
    if (o?.sealed && o.entry === undefined) {
      out.closed++;
      const id = boxedId(x);
      if (id !== undefined) out.unopened.push({ id, text: JSON.stringify(x) });
      continue;
    }
    const entry = o?.entry as Entry | undefined;
    if (!o || !entry || !isEntry(entry, entry.id)) {
      // A sealed entry that does not open (changed, or another key's) loses its record, not its seal:
      // unsealed, the id's next write would go out in clear (GUAR-19).
      const id = boxedId(x);
      if (id !== undefined) sealed.add(id);
      // A box that opened into no entry is damage; one that did not open may be another key's, and is kept.
      if (id !== undefined && !o) out.unopened.push({ id, text: JSON.stringify(x) });
      out.unreadable++;
      continue;
    }
    if (o.sealed) sealed.add(entry.id);
    out.list.push(entry);
  }
  return out;
}

/**
 * The member of a tombstone's or purge marker's element naming the scope it
 * was in (docs/guarantees.md, "A removed record's scope"): beside the
 * entry, never part of it. heldEntry keeps only an entry's own members, so
 * no digest, canonical text or CRDT state sees it, and a reader that knows
 * nothing of it (an earlier version) reads the entry as if it were absent.
 */
export const REMOVED_SCOPE = 'scope';

/** Where a removed record's element read back says its record was: the stamp of that state (the purge's, else `latest`) and the scope. */
export interface RemovedScope {
  stamp: Stamp;
  scope: string;
}

/** The stamp a removed entry's scope is told apart by: its purge's, else its latest. */
export const removedStamp = (e: Entry): Stamp => e.purged ?? e.latest;

/**
 * A cipher whose text carries, for each tombstone and purge marker, the
 * scope `scopeOf` names for it (REMOVED_SCOPE), inside a sealed record's box
 * as the rest of its element is. Its field is gone, so nothing else could
 * place it again once retention dropped the ops that removed it. Only
 * removed records are copied; every other entry is written as it was.
 */
export function withRemovedScopes(inner: RecordCipher, scopeOf: (e: Entry) => string | undefined): RecordCipher {
  const mark = (entries: readonly Entry[]): readonly Entry[] => {
    let out: Entry[] | undefined;
    entries.forEach((e, i) => {
      const scope = isHidden(e) ? scopeOf(e) : undefined;
      if (scope === undefined) return;
      (out ??= entries.slice())[i] = { ...e, [REMOVED_SCOPE]: scope } as Entry;
    });
    return out ?? entries;
  };
  return { text: (entries) => inner.text(mark(entries)), texts: (entries) => inner.texts(mark(entries)), open: (x) => inner.open(x) };
}

/**
 * Record files' entries joined per id as a load joins them: every whole
 * entry as its file is read, the parts once all are (a part joins the whole
 * entry it was cut from, the one join it is sure to meet, whatever the order
 * of the files a merge renumbered). Entries are CRDT states: file order
 * never matters otherwise. Also the scope each removed record's newest
 * element carries (REMOVED_SCOPE).
 */
export class RecordJoin {
  readonly entries = new Map<string, Entry>();
  /** Per removed id, its newest element's state and the scope that element names (none: written without one). */
  private readonly removed = new Map<string, { stamp: Stamp; scope?: string }>();
  private readonly later: Entry[] = [];

  /** Take one entry of a file: a whole one now, a part (marked, isPart) at finish(). */
  take(x: Entry): void {
    if (isHidden(x)) this.noteRemoved(x);
    if (isPart(x)) this.later.push(wholeOf(x));
    else this.join(x);
  }

  /**
   * The scope each removed record's newest element names, where it names
   * one: an older element's (a record deleted, written again, deleted in
   * another scope) does not count, and of elements of one state (a
   * rebuild's write beside the first), one that names a scope wins.
   */
  removedScopes(): Map<string, RemovedScope> {
    const out = new Map<string, RemovedScope>();
    for (const [id, r] of this.removed) if (r.scope !== undefined) out.set(id, { stamp: r.stamp, scope: r.scope });
    return out;
  }

  private noteRemoved(x: Entry): void {
    const named = (x as { [REMOVED_SCOPE]?: unknown })[REMOVED_SCOPE];
    const scope = isScopeName(named) ? named : undefined;
    const stamp = removedStamp(x);
    const was = this.removed.get(x.id);
    const order = was ? compareStamps(stamp, was.stamp) : 1;
    if (order > 0 || (order === 0 && scope !== undefined)) this.removed.set(x.id, { stamp, scope });
  }

  /** Join the parts taken; returns the entries per id. */
  finish(): Map<string, Entry> {
    for (const x of this.later.splice(0)) this.join(x);
    return this.entries;
  }

  private join(x: Entry): void {
    const have = this.entries.get(x.id);
    this.entries.set(x.id, have ? joinEntries(have, x) : heldEntry(x));
  }
}

/** What a rebuild from a log whose floor is above 0 cannot bring back, for a report. */
export function lostBelow(floor = 0): string {
  return floor > 0 ? ` (the log no longer holds positions 1..${floor}: a record only older ops wrote may be lost, or back in part)` : '';
}

/**
 * The highest record file number the store takes: far past what any store
 * writes (one file a batch), far below where a number stops counting up.
 * A file named past it (records/9007199254740992.json, placed by hand) made
 * the next number one that `n + 1` never moves from: open() looped for good
 * looking for a free name, and past 2^53 every write went to one file.
 */
export const MAX_RECORD_FILE = 2 ** 40;

/** The numbers of the record files, in order (records/<n>.json up to MAX_RECORD_FILE; other names are no record file). */
export async function recordFileNumbers(backend: Backend): Promise<number[]> {
  const ns = (await backend.list(RECORDS_DIR)).map((f) => /^(\d{1,15})\.json$/.exec(f)?.[1]).filter((x): x is string => !!x).map(Number);
  return ns.filter((n) => n <= MAX_RECORD_FILE).sort((a, b) => a - b);
}

/**
 * One record file read and parsed, `text` its elements without their sum;
 * `parsed` undefined when it cannot be read at all (not a JSON array, a sum
 * that fails: `sumFails`, or a read that failed: `cause`).
 */
export async function readRecordFile(backend: Backend, n: number, cipher: RecordCipher, sealed: Set<string>): Promise<{ path: string; text?: string; parsed?: ParsedRecordFile; cause?: unknown; sumFails?: true }> {
  const path = fileName(n);
  let text: string | undefined;
  try {
    text = await backend.read(path);
  } catch (cause) {
    return { path, cause };
  }
  // The elements, their sum taken off: what the store keeps of the file's text, and what a merge carries.
  const body = unsummed(text);
  if (body === undefined) return { path, text, sumFails: true };
  return { path, text: body, parsed: parseRecordFile(body, cipher, sealed) };
}

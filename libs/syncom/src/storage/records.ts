import { SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import { type Entry, entriesText, heldEntry, isEntry, joinEntries } from '../crdt';

export const RECORDS_DIR = 'records';
/**
 * Files merged at a time. Each entry is rewritten once per level, log_FAN of
 * (records / batch): 16 rather than 8 took 12% off a peer page's apply at
 * 100k records (pages of 500, signatures off); 32 gained nothing more.
 */
export const FAN = 16;
/**
 * A record file's text is kept in memory up to this many characters, for the
 * merge that takes it: read back through libuv's pool, 16 small files cost
 * dozens of round trips, each waiting for a turn of an event loop busy with
 * writes (the merges then fell behind the writes, and the log's seals with
 * them). At most FAN - 1 files of a size class wait for a merge, so this
 * holds a few MB at most.
 */
const KEEP_TEXT_MAX = 64 * 1024;

interface RecordFile {
  n: number;
  ids: string[];
  /** How many of its ids a newer file holds: with none, its text holds each id's latest written state. */
  stale: number;
  /** The file a merge moved it into (its ids' newest file is that one's). */
  into?: RecordFile;
  /** Its text as written, when small (see KEEP_TEXT_MAX): a merge need not read it back. */
  text?: string;
}

/** A file's text to keep in memory, if it is small enough. */
const kept = (text: string): string | undefined => (text.length <= KEEP_TEXT_MAX ? text : undefined);

/** How record files hold sealed records (GUAR-19); without one, every entry is plain JSON. */
export interface RecordCipher {
  /** The JSON text of a record file holding `entries`. */
  text(entries: readonly Entry[]): string;
  /** One element of a record file: the entry in it and whether it was sealed; undefined when it cannot be opened. */
  open(x: unknown): { entry: unknown; sealed: boolean } | undefined;
}

/** RecordStore.load()'s options. */
export interface RecordStoreOptions {
  backend: Backend;
  durable: boolean;
  /** An unreadable record file (OP_UNREADABLE); loading goes on without it. */
  onError: (e: Error) => void;
  cipher?: RecordCipher;
  /**
   * Hand the files a merge took back with `recycle` (see Backend.remove), so
   * the next record files are written into them: in the log's default layout
   * that keeps the record writes, and so the seals that free the log's batch
   * files, up with awaited writes. Off with `log.lines`, where no batch file
   * waits on a seal and a record file filled on the main thread took that
   * thread from the appends (awaited inserts 0.19 to 0.24 of signing against
   * 0.27 to 0.32, docs/benchmarks.md).
   */
  recycle?: boolean;
}

const plain: RecordCipher = { text: entriesText, open: (x) => ({ entry: x, sealed: false }) };

const levelOf = (count: number) => Math.floor(Math.log(Math.max(1, count)) / Math.log(FAN));
const fileName = (n: number) => `${RECORDS_DIR}/${n}.json`;

/**
 * The record files: each committed batch writes one file with the entries it
 * changed (so record persistence costs one file per batch, not one per record);
 * files of a size class are merged FAN (16) at a time, so a store holds O(log n)
 * files and each entry is rewritten O(log n) times. Entries are CRDT states,
 * so loading joins every file's state of an id: the order of files never matters.
 */
export class RecordStore {
  private files: RecordFile[] = [];
  private next = 1;
  /**
   * Per id, the newest file holding it (the file with its latest written
   * state), or a file merged since, whose `into` leads to it. A file whose
   * every id is newest there (stale 0) is merged by reusing its text (see
   * merge), not by serializing its entries again. Following `into` rather
   * than pointing every id at the merged file saves a table update per id
   * and level: a bootstrap's 100k records cost two a record before.
   */
  private readonly newest = new Map<string, RecordFile>();

  private readonly backend: Backend;
  private readonly durable: boolean;
  private readonly cipher: RecordCipher;
  private readonly recycle: boolean;

  private constructor(o: RecordStoreOptions) {
    this.backend = o.backend;
    this.durable = o.durable;
    this.cipher = o.cipher ?? plain;
    this.recycle = o.recycle === true;
  }

  /**
   * Read every record file; unreadable ones are reported and skipped (the log
   * tail replays). `sealed` holds the ids whose entries were sealed (GUAR-19).
   */
  static async load(o: RecordStoreOptions): Promise<{ store: RecordStore; entries: Map<string, Entry>; sealed: Set<string> }> {
    const { backend } = o;
    const store = new RecordStore(o);
    await backend.mkdir(RECORDS_DIR);
    const entries = new Map<string, Entry>();
    const sealed = new Set<string>();
    const ns = (await backend.list(RECORDS_DIR)).map((f) => /^(\d+)\.json$/.exec(f)?.[1]).filter((x): x is string => !!x).map(Number);
    for (const n of ns.sort((a, b) => a - b)) {
      const text = await backend.read(fileName(n));
      const parsed = parseRecordFile(text, store.cipher, sealed);
      if (!parsed) {
        o.onError(new SyncomError('OP_UNREADABLE', `record file ${fileName(n)} cannot be read`, { file: fileName(n) }));
        continue;
      }
      const { list, unreadable } = parsed;
      if (unreadable > 0) {
        o.onError(new SyncomError('OP_UNREADABLE', `record file ${fileName(n)}: ${unreadable} unreadable entries skipped`, { file: fileName(n), count: unreadable }));
      }
      for (const e of list) {
        const have = entries.get(e.id);
        entries.set(e.id, have ? joinEntries(have, e) : heldEntry(e));
      }
      // A file with an unreadable entry counts as stale: its next merge writes its readable entries anew
      // rather than carrying its text, and the unreadable one, on.
      store.add({ n, ids: list.map((e) => e.id), stale: unreadable > 0 ? 1 : 0, text: unreadable > 0 ? undefined : kept(text as string) });
      store.next = Math.max(store.next, n + 1);
    }
    return { store, entries, sealed };
  }

  /** Persist the entries a batch changed; then merge size classes that filled up. */
  async write(changed: Entry[], current: ReadonlyMap<string, Entry>): Promise<void> {
    if (changed.length === 0) return;
    const n = this.next++;
    const text = this.cipher.text(changed);
    await this.backend.write(fileName(n), text, { durable: this.durable });
    this.add({ n, ids: changed.map((e) => e.id), stale: 0, text: kept(text) });
    await this.compact(current);
  }

  /** Take a file written (or loaded, in number order): its ids are newest there; the files that held them before hold them stale. */
  private add(file: RecordFile): void {
    this.files.push(file);
    for (const id of file.ids) {
      const before = this.newestFile(id);
      if (before === file) continue;
      if (before) before.stale++;
      this.newest.set(id, file);
    }
  }

  /** The newest file holding `id`, following merges. */
  private newestFile(id: string): RecordFile | undefined {
    let f = this.newest.get(id);
    if (!f?.into) return f;
    while (f.into) f = f.into;
    this.newest.set(id, f);
    return f;
  }

  /** Rewrite every file that holds `id` with the current states (a purge leaves only its marker). */
  async scrub(id: string, current: ReadonlyMap<string, Entry>): Promise<void> {
    for (const f of this.files.filter((x) => x.ids.includes(id))) {
      const entries = f.ids.map((i) => current.get(i)).filter((e): e is Entry => !!e);
      const text = this.cipher.text(entries);
      // The text kept goes first: a merge never takes what the purge is erasing, even if the write fails.
      f.text = undefined;
      await this.backend.write(fileName(f.n), text, { durable: this.durable });
      f.text = kept(text);
    }
  }

  private async compact(current: ReadonlyMap<string, Entry>): Promise<void> {
    for (;;) {
      const byLevel = new Map<number, RecordFile[]>();
      for (const f of this.files) {
        const l = levelOf(f.ids.length);
        byLevel.set(l, [...(byLevel.get(l) ?? []), f]);
      }
      const full = [...byLevel.values()].find((fs) => fs.length >= FAN);
      if (!full) return;
      await this.merge(full, current);
    }
  }

  /**
   * One file for `files`, holding each of their ids once, at its newest state.
   * A file whose ids are all newest in it is taken as its text stands (it
   * holds their latest written state, scrubs included: they rewrite the
   * file): serializing it again was most of a store's record-file cost, each
   * entry being rewritten once per level. The others give the current entries
   * of their ids that no newer file holds; an id held by a newer file outside
   * the merge is left to that file. Entries are CRDT states joined at load,
   * so a state a pending batch has moved on from is only an older join term.
   */
  private async merge(files: RecordFile[], current: ReadonlyMap<string, Entry>): Promise<void> {
    const parts: string[] = [];
    const ids: string[] = [];
    const loose: Entry[] = [];
    for (const f of files) {
      const text = f.stale === 0 ? (f.text ?? (await this.backend.read(fileName(f.n)))) : undefined;
      if (text !== undefined && text.startsWith('[') && text.endsWith(']')) {
        if (text.length > 2) parts.push(text.slice(1, -1));
        ids.push(...f.ids);
        continue;
      }
      for (const id of f.ids) {
        const e = this.newestFile(id) === f ? current.get(id) : undefined;
        if (e) loose.push(e);
      }
    }
    if (loose.length) {
      parts.push(this.cipher.text(loose).slice(1, -1));
      ids.push(...loose.map((e) => e.id));
    }
    const n = this.next++;
    const text = `[${parts.join(',')}]`;
    await this.backend.write(fileName(n), text, { durable: this.durable });
    this.files = this.files.filter((f) => !files.includes(f));
    // Every id taken is newest in the merged file: the merged files lead there, without a table update per id.
    const merged: RecordFile = { n, ids, stale: 0, text: kept(text) };
    for (const f of files) {
      f.into = merged;
      f.ids = [];
      f.text = undefined;
    }
    this.files.push(merged);
    // Recycled: the next record files are written into these rather than into new ones (see the fs backend).
    for (const f of files) await this.backend.remove(fileName(f.n), { recycle: this.recycle });
  }
}

/**
 * A record file's entries, sealed ones opened (their ids added to `sealed`),
 * and how many of its elements are no entry or cannot be opened: one bad
 * entry costs that record, not the file's others, whose ops the log counts as
 * recorded and would not replay. Undefined when the file is not a JSON array
 * at all (a torn write).
 */
function parseRecordFile(text: string | undefined, cipher: RecordCipher, sealed: Set<string>): { list: Entry[]; unreadable: number } | undefined {
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

import { SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import { type Entry, entryDelta, isLargeEntry } from '../crdt';
import { asPart, fileName, isPart, lostBelow, parseRecordFile, type PartEntry, plainCipher, readRecordFile, type RecordCipher, recordFileNumbers, RecordJoin, RECORDS_DIR, type RemovedScope, roughChars, withUnopened } from './record-file';
import { RecordLeftovers } from './record-leftovers';
import { FAN, nextMerge, type RecordFile, weightOf } from './record-merges';
import { unsummed, writeRecordFile } from './record-sum';

export { FAN, MERGE_CAP } from './record-merges';

export type { RecordCipher } from './record-file';

export { lostBelow, readRecordFile, recordFileNumbers, RECORDS_DIR } from './record-file';

/**
 * A record file's text is kept in memory up to this many characters, for the
 * merge that takes it: read back through libuv's pool, 16 small files cost
 * dozens of round trips, each waiting for a turn of an event loop busy with
 * writes (the merges then fell behind the writes, and the log's seals with
 * them). At most FAN - 1 files of a size class wait for a merge, so this
 * holds a few MB at most.
 */
const KEEP_TEXT_MAX = 64 * 1024;

/**
 * Characters of an entry's text past which it is written as parts, as an
 * entry holding a large map is: a record of 30 fields of 100 KB each,
 * written whole after each small write beside them, cost every batch 3 MB
 * of text (test/hostile/op-cost.spec.ts).
 */
const LONG_TEXT = 16 * 1024;

/** What a large entry (or a long one, LONG_TEXT) was last written as: the entry, and the text written for it whole, and as parts since. */
interface Written {
  entry: Entry;
  wholeChars: number;
  partChars: number;
}

/** A file's text to keep in memory, if it is small enough. */
const kept = (text: string): string | undefined => (text.length <= KEEP_TEXT_MAX ? text : undefined);

/** RecordStore.load()'s options. */
export interface RecordStoreOptions {
  backend: Backend;
  durable: boolean;
  /** A record file that cannot be read, or holds entries that cannot (OP_UNREADABLE); loading goes on without them. */
  onError: (e: Error) => void;
  /** The log's floor: above 0, what only older ops wrote cannot be rebuilt, and the report says so. */
  logFloor?: number;
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

/**
 * The record files: each committed batch writes one file with the entries it
 * changed (so record persistence costs one file per batch, not one per record);
 * files of a size class are merged up to MERGE_CAP (record-merges.ts), so each
 * entry is rewritten a few times and no merged file holds more than about
 * 1,024 entries or 1 MB, what a purge rewrites of it. Entries are CRDT states,
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
  /**
   * Per id written as parts, the number of the file of its last whole write
   * (-1 when unknown: loaded from disk): a part in a file of a higher number
   * is needed beside that whole entry, one of a lower number is not.
   */
  private readonly wholeAt = new Map<string, number>();
  /** Per large entry, what was last written of it: the next batch writes the part it adds (see write). */
  private readonly written = new Map<string, Written>();
  /** Per id, the files its parts were written in since its last whole write (a merge's `into` leads to where they are now). */
  private readonly partFiles = new Map<string, RecordFile[]>();
  /** Per file looked at by a scrub, its ids (idsOf). */
  private readonly idSets = new WeakMap<RecordFile, Set<string>>();

  private readonly backend: Backend;
  private readonly durable: boolean;
  private readonly cipher: RecordCipher;
  private readonly leftovers: RecordLeftovers;

  private constructor(o: RecordStoreOptions) {
    this.backend = o.backend;
    this.durable = o.durable;
    this.cipher = o.cipher ?? plainCipher;
    this.leftovers = new RecordLeftovers(o.backend, o.recycle === true, o.onError);
  }

  /**
   * Read every record file. A file that cannot be read, or holds entries that
   * cannot, is reported (OP_UNREADABLE, saying its records are rebuilt from
   * the log) and `damaged` is set: the caller replays the whole log onto the
   * records (storage/load.ts). The file stays as it is, for whoever looks at
   * the damage. `sealed` holds the ids whose entries were sealed (GUAR-19),
   * `removedScopes` the scopes removed records' elements name (RecordJoin).
   */
  static async load(o: RecordStoreOptions): Promise<{ store: RecordStore; entries: Map<string, Entry>; sealed: Set<string>; damaged: boolean; removedScopes: Map<string, RemovedScope> }> {
    const { backend } = o;
    const store = new RecordStore(o);
    await backend.mkdir(RECORDS_DIR);
    const join = new RecordJoin();
    const sealed = new Set<string>();
    let damaged = false;
    for (const n of await recordFileNumbers(backend)) {
      // A damaged file's number is never written again: a later write over it would hide what was lost.
      store.next = Math.max(store.next, n + 1);
      const { text, parsed, cause, sumFails } = await readRecordFile(backend, n, store.cipher, sealed);
      if (!parsed) {
        damaged = true;
        const why = sumFails ? 'does not match its sum (changed after it was written)' : 'cannot be read';
        o.onError(new SyncomError('OP_UNREADABLE', `record file ${fileName(n)} ${why}: its records were rebuilt from the log${lostBelow(o.logFloor)}`, { file: fileName(n), cause }));
        continue;
      }
      const { list, unreadable, unopened } = parsed;
      if (unreadable > 0) {
        damaged = true;
        o.onError(new SyncomError('OP_UNREADABLE', `record file ${fileName(n)}: ${unreadable} unreadable entries, whose records were rebuilt from the log${lostBelow(o.logFloor)}`, { file: fileName(n), count: unreadable }));
      }
      const parts = new Map<string, number>();
      const wholes = new Set<string>();
      for (const x of list) {
        join.take(x);
        if (isPart(x)) parts.set(x.id, n);
        else wholes.add(x.id);
      }
      // A file with an unreadable entry counts as stale: its next merge writes its readable entries anew
      // rather than carrying its text, and a damaged one (the log rebuilt its record) on; a sealed one not opened here goes on as read.
      store.add({ n, ids: list.map((e) => e.id), weight: weightOf(list.length, (text as string).length), stale: unreadable > 0 ? 1 : 0, text: unreadable > 0 ? undefined : kept(text as string), ...(parts.size > 0 && { parts }), ...(unopened.length > 0 && { unopened }) }, wholes);
      for (const id of parts.keys()) store.wholeAt.set(id, -1);
    }
    // A name list() does not show (a directory in a file's place) would fail every write made to it.
    while (await backend.exists(fileName(store.next))) store.next++;
    return { store, entries: join.finish(), sealed, damaged, removedScopes: join.removedScopes() };
  }

  /**
   * Persist the entries a batch changed; then merge size classes that filled
   * up. A large entry (isLargeEntry) written before is written as the part
   * the batch added to it (entryDelta), until its parts since its last whole
   * write add up to that write's text: then whole again. So a batch of one op
   * on a set of 100,000 elements writes that op's element, not the set (10 ms
   * of copying a batch before), and a record's parts on disk stay within its
   * own size.
   */
  async write(changed: Entry[], current: ReadonlyMap<string, Entry>): Promise<void> {
    if (changed.length === 0) return;
    const n = this.next++;
    const wholes: Entry[] = [];
    const large: Entry[] = [];
    const parts: (PartEntry & { of: Entry })[] = [];
    for (const e of changed) {
      const was = this.written.size > 0 ? this.written.get(e.id) : undefined;
      const part = was && was.partChars < was.wholeChars ? entryDelta(was.entry, e) : undefined;
      if (part) parts.push(asPart(part, e));
      else (was || isLargeEntry(e) ? large : wholes).push(e);
    }
    // The large entries' texts one by one: what each weighs is what decides when it is next written whole.
    const texts = large.length + parts.length > 0 ? this.cipher.texts([...large, ...parts]) : [];
    const rest = wholes.length > 0 ? this.cipher.text(wholes) : '[]';
    const text = texts.length === 0 ? rest : `[${[rest.slice(1, -1), ...texts].filter((t) => t !== '').join(',')}]`;
    await writeRecordFile(this.backend, fileName(n), text, this.durable);
    large.forEach((e, i) => {
      // An entry neither large nor long any more is written whole from now on: what was kept of it goes.
      if (texts[i].length > LONG_TEXT || isLargeEntry(e)) this.written.set(e.id, { entry: e, wholeChars: texts[i].length, partChars: 0 });
      else this.written.delete(e.id);
      this.wholeWritten(e.id, n);
    });
    for (const e of wholes) if (this.wholeAt.has(e.id)) this.wholeWritten(e.id, n);
    // A long batch: its long entries are found (a walk of each, its text measured only when the walk finds it may be long) and kept as large ones are.
    if (rest.length > LONG_TEXT) {
      for (const e of wholes) {
        if (roughChars(e) <= LONG_TEXT / 2) continue;
        const wholeChars = this.cipher.texts([e])[0].length;
        if (wholeChars <= LONG_TEXT) continue;
        this.written.set(e.id, { entry: e, wholeChars, partChars: 0 });
        this.wholeWritten(e.id, n);
      }
    }
    parts.forEach((p, i) => {
      const was = this.written.get(p.id) as Written;
      was.entry = p.of;
      was.partChars += texts[large.length + i].length;
    });
    this.add({ n, ids: changed.map((e) => e.id), weight: weightOf(changed.length, text.length), stale: 0, text: kept(text), ...(parts.length > 0 && { parts: new Map(parts.map((p) => [p.id, n])) }) });
    await this.compact(current);
  }

  /**
   * Take a file written (or loaded, in number order): its ids are newest
   * there; the files that held them before hold them stale. An id it holds
   * only a part of leaves the whole entry where it is (both are needed); a
   * loaded file may hold an id both ways (a merge carried a whole entry and
   * a part of it): `wholes` names the ids it holds whole.
   */
  private add(file: RecordFile, wholes?: ReadonlySet<string>): void {
    this.files.push(file);
    for (const id of file.ids) {
      if (file.parts?.has(id)) {
        if (!this.wholeAt.has(id)) this.wholeAt.set(id, -1);
        const holders = this.partFiles.get(id);
        if (!holders) this.partFiles.set(id, [file]);
        else if (holders[holders.length - 1] !== file) holders.push(file);
        if (!wholes?.has(id)) continue;
      }
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

  /**
   * `id` written whole in file number `n`: its parts written before are not
   * needed any more, and the files holding them count as stale, so their
   * next merge drops those parts rather than carrying them on for ever.
   */
  private wholeWritten(id: string, n: number): void {
    this.wholeAt.set(id, n);
    const holders = this.partFiles.get(id);
    if (!holders) return;
    this.partFiles.delete(id);
    const seen = new Set<RecordFile>();
    for (let f of holders) {
      while (f.into) f = f.into;
      if (!seen.has(f)) seen.add(f) && f.stale++;
    }
  }

  /** The parts a record file holds, marked as parts (read back when its text is not kept); undefined when it cannot be read. */
  private async readParts(f: RecordFile): Promise<Entry[] | undefined> {
    const parsed = parseRecordFile(f.text ?? unsummed(await this.backend.read(fileName(f.n))), this.cipher, new Set());
    return parsed?.list.filter(isPart);
  }

  /** Whether the part of `id` written in file number `at` is needed: no whole write of `id` came after it. */
  private partNeeded(id: string, at: number): boolean {
    return at > (this.wholeAt.get(id) ?? -1);
  }

  /**
   * Rewrite every file that holds one of `ids`, each file once: the purged
   * ids as their current states (a purge leaves only its marker), the other
   * records as they stand, but a part the file holds of a record whose
   * whole entry is elsewhere stays that part. Written whole, a part of a
   * set of 100,000 elements made each purge of a small record beside it
   * write the set, 9.2 MB.
   */
  async scrub(ids: readonly string[], current: ReadonlyMap<string, Entry>): Promise<void> {
    const purged = new Set(ids);
    await this.leftovers.scrub(purged);
    const holding = this.files.filter((f) => ids.some((id) => this.idsOf(f).has(id) || f.unopened?.some((u) => u.id === id)));
    for (const f of holding) {
      const asParts = new Set([...(f.parts?.keys() ?? [])].filter((id) => !purged.has(id) && this.newestFile(id) !== f));
      const held = asParts.size > 0 ? (await this.readParts(f))?.filter((x) => asParts.has(x.id)) : undefined;
      // A part that cannot be read back goes whole, as a merge does.
      const keptParts = held && new Set(held.map((x) => x.id)).size === asParts.size ? held : [];
      const whole = [...this.idsOf(f)].filter((i) => keptParts.length === 0 || !asParts.has(i)).map((i) => current.get(i)).filter((e): e is Entry => !!e);
      const wholeText = this.cipher.text(whole);
      // A sealed element not opened here stays, but one of a purged id: the purge erases its record's box too.
      const unopened = f.unopened?.filter((u) => !purged.has(u.id));
      const text = withUnopened(keptParts.length === 0 ? wholeText : `[${[wholeText.slice(1, -1), ...this.cipher.texts(keptParts)].filter((t) => t !== '').join(',')}]`, unopened);
      // The text kept goes first: a merge never takes what the purge is erasing, even if the write fails.
      f.text = undefined;
      await writeRecordFile(this.backend, fileName(f.n), text, this.durable);
      f.unopened = unopened?.length ? unopened : undefined;
      f.text = kept(text);
      f.weight = weightOf(whole.length + keptParts.length, text.length);
    }
  }

  /**
   * A file's ids as a set, made at the first scrub that looks at the file
   * (its ids never change): finding the files that hold a purged id was a
   * scan of every id of every file, 1.9 ms a purge at 200,000 records.
   */
  private idsOf(f: RecordFile): ReadonlySet<string> {
    let set = this.idSets.get(f);
    if (!set) this.idSets.set(f, (set = new Set(f.ids)));
    return set;
  }

  /** Merge while nextMerge finds files due (record-merges.ts). */
  private async compact(current: ReadonlyMap<string, Entry>): Promise<void> {
    for (let due = nextMerge(this.files); due; due = nextMerge(this.files)) await this.merge(due, current);
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
    const loose = new Map<string, Entry>();
    const partsKept = new Map<string, number>();
    const keepPart = (id: string, at: number) => partsKept.set(id, Math.max(at, partsKept.get(id) ?? at));
    const keptParts: Entry[] = [];
    /** Ids a needed part of which could not be read back: written whole (current), newest here from now on. */
    const wholeNow = new Set<string>();
    for (const f of files) {
      // Read back, a file whose sum fails is not carried: its records are written as they stand.
      const text = f.stale === 0 ? (f.text ?? unsummed(await this.backend.read(fileName(f.n)))) : undefined;
      if (text !== undefined && text.startsWith('[') && text.endsWith(']')) {
        if (text.length > 2) parts.push(text.slice(1, -1));
        ids.push(...f.ids);
        for (const [id, at] of f.parts ?? []) if (this.partNeeded(id, at)) keepPart(id, at);
        continue;
      }
      // Its text is not carried: the sealed elements not opened here are, as read.
      for (const u of f.unopened ?? []) parts.push(u.text);
      for (const id of f.ids) {
        if (this.newestFile(id) !== f || loose.has(id)) continue;
        const e = current.get(id);
        if (e) loose.set(id, e);
      }
      // The parts still needed are carried as they are (read back from the file), not replaced by the
      // record whole: a file goes stale when another record's whole write supersedes its part there.
      const needed = [...(f.parts ?? [])].filter(([id, at]) => !loose.has(id) && this.partNeeded(id, at));
      if (needed.length === 0) continue;
      const held = await this.readParts(f);
      for (const [id, at] of needed) {
        const mine = held?.filter((p) => p.id === id) ?? [];
        if (mine.length > 0) {
          keptParts.push(...mine);
          keepPart(id, at);
          continue;
        }
        // A part that cannot be read back (the file changed under us): the record goes whole instead.
        const e = current.get(id);
        if (e) loose.set(id, e) && wholeNow.add(id);
      }
    }
    if (keptParts.length) {
      parts.push(...this.cipher.texts(keptParts));
      ids.push(...keptParts.map((p) => p.id));
    }
    if (loose.size) {
      parts.push(this.cipher.text([...loose.values()]).slice(1, -1));
      ids.push(...loose.keys());
    }
    const n = this.next++;
    const text = `[${parts.filter((p) => p !== '').join(',')}]`;
    await writeRecordFile(this.backend, fileName(n), text, this.durable);
    this.files = this.files.filter((f) => !files.includes(f));
    // Every id taken is newest in the merged file: the merged files lead there, without a table update per id.
    const unopened = files.flatMap((f) => f.unopened ?? []);
    const merged: RecordFile = { n, ids, weight: weightOf(ids.length, text.length), stale: 0, text: kept(text), ...(partsKept.size > 0 && { parts: partsKept }), ...(unopened.length > 0 && { unopened }) };
    this.leftovers.take(files);
    for (const f of files) {
      f.into = merged;
      f.ids = [];
      f.text = undefined;
    }
    for (const id of wholeNow) {
      const before = this.newestFile(id);
      if (before && before !== merged) before.stale++;
      this.newest.set(id, merged);
    }
    for (const id of loose.keys()) if (this.wholeAt.has(id)) this.wholeWritten(id, n);
    this.files.push(merged);
    // Recycled: the next record files are written into these rather than into new ones (see the fs backend).
    await this.leftovers.retry();
  }
}

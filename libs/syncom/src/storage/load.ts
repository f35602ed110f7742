import { SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import type { BackendLock } from '../backend/lock';
import { applyOp, compareStamps, type Entry, entryText, isEntry, raisesPurge } from '../crdt';
import { type LogEntry, OpLog } from '../log';
import { INDEX_FILE, LOG_DIR, OPEN_DIR, batchFromName } from '../log/files';
import { DEFAULT_MAX_SKEW, FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED, isScrubbed } from '../op';
import type { Op, Stamp } from '../op/types';
import { sigHeader } from '../op/sign';
import { signOff } from '../op/signer';
import { platform } from '../platform';
import { createLogCipher, createRecordCipher } from '../sealed';
import { createSchema, type Schema } from '../schema';
import { createClock, readWall } from './clock';
import { Committer, type CommitHooks } from './commit';
import { Emitter } from './emitter';
import { HeldStreams } from './held-streams';
import { validatorSays } from './peer';
import { ListedIds } from './listed-ids';
import { loadKeys } from './keys';
import { isMadeHere } from '../op/made';
import type { OpenOptions } from './options';
import { lostBelow, recordFileNumbers, RECORDS_DIR, RecordStore } from './records';
import { STORAGE_EVENT_NAMES, type StorageEvents, type StorageParts } from './parts';
import { withRemovedScopes } from './record-file';
import { RecordScopes } from './record-scopes';
import { readStoreFormat, refuseNewerFormat, STORE_FORMAT, writeStoreFormat } from './store-format';

/** What a replay knows: the schema, and the ids this node keeps sealed. */
export interface ReplayContext {
  schema?: Schema;
  sealed: ReadonlySet<string>;
  /** The records replayed onto: a held op the schema now takes is validated on its record, as a peer's op is when it comes (validatorSays). */
  committed: ReadonlyMap<string, Entry>;
  /** The held ops that wait still (a newer version's, or behind one in their stream); without it, those of a newer version. */
  held?: HeldStreams;
}

/** A logged op as a replay reads it: the op and its log flags. */
export type Logged = Pick<LogEntry, 'op' | 'flags'>;

/** Whether a logged entry is applied to the records on replay. */
function applies(e: Logged, c: ReplayContext): boolean {
  if (e.flags & FLAG_SKIPPED || isScrubbed(e.op) || e.op.type === 'advance') return false;
  // Only this node's sealed ops land on a sealed record: a peer's op held for a newer schema does not (GUAR-19).
  if (c.sealed.has(e.op.id) && !(e.flags & FLAG_SEALED)) return false;
  if (e.flags & FLAG_HELD) return !!c.schema && !stillHeld(e, c.schema, c.held) && !validatorSays(c, e.op, c.committed.get(e.op.id));
  return e.op.type !== 'merge' || isEntry(e.op.data, e.op.id);
}

/** Whether a held entry waits still: no schema, one older than the op's, or an op before it in its stream waits. An applied one is state like any other. */
export function stillHeld(e: Logged, schema: Schema | undefined, held?: HeldStreams): boolean {
  return (held ?? new HeldStreams(schema?.version ?? -1, schema?.maxAhead)).waits(e);
}

/**
 * Replay log entries onto the records (LOG-2, GUAR-7); also held ops a newer
 * schema now takes. Ops are CRDT updates: one the records hold already
 * changes nothing. The CLI's verify replays a log the same way to check the
 * record files against it.
 */
export function replayLog(committed: Map<string, Entry>, entries: readonly Logged[], c: ReplayContext): void {
  for (const e of entries) {
    if (!applies(e, c)) continue;
    const have = committed.get(e.op.id);
    // Nothing lands on a purged record but a purge, or a merge whose marker is newer (crdt/merge.ts raisesPurge).
    if (have?.purged && e.op.type !== 'purge' && !(e.op.type === 'merge' && isEntry(e.op.data, e.op.id) && raisesPurge(have, e.op.data))) continue;
    committed.set(e.op.id, applyOp(have, e.op).entry);
  }
}

/** The stamp an applied op leaves its record's `latest` at or past: its own, or for a merge the entry's it carries. */
function stampOf(op: Op): Stamp | undefined {
  if (op.type !== 'merge') return [op.ts, op.origin];
  const latest = (op.data as Partial<Entry> | undefined)?.latest;
  return Array.isArray(latest) ? latest : undefined;
}

/**
 * One pass over the log: the ids it holds sealed ops of (GUAR-19: a record
 * file may not have them yet), and the ids whose record files lack what its
 * sealed part applied: a record no file holds, or one older there than an op
 * of it. A batch is sealed only once its records are written (GUAR-8), so
 * that is damage (a record file lost, or put back from an older copy), which
 * nothing else would notice. Costs a lookup an entry; held, skipped and
 * scrubbed ops never landed and are not counted.
 */
function scanLog(log: OpLog, entries: ReadonlyMap<string, Entry>, c: ReplayContext & { sealed: Set<string> }): string[] {
  const sealedTo = log.batches.length > 0 ? log.batches[0].from - 1 : log.head;
  const behind: LogEntry[] = [];
  for (const e of log.entries) {
    if (!e) continue;
    if (e.flags & FLAG_SEALED) c.sealed.add(e.op.id);
    if (e.pos > sealedTo || e.flags & FLAG_HELD) continue;
    const have = entries.get(e.op.id);
    if (have?.purged) continue;
    const stamp = have && stampOf(e.op);
    if (have && (!stamp || compareStamps(have.latest, stamp) >= 0)) continue;
    behind.push(e);
  }
  return [...new Set(behind.filter((e) => applies(e, c)).map((e) => e.op.id))];
}

/**
 * Records on disk with no log at all beside them: a partial restore (records/
 * copied, log/ not). A new log would start a new epoch and sign this node's
 * seqs from 1 again, a fork of what its peers hold. A log with files but no
 * index is the log's own to judge (log/load.ts).
 *
 * @throws SyncomError STORE_DAMAGED naming log/index.json.
 */
async function refuseRecordsWithoutLog(backend: Backend): Promise<void> {
  if (await backend.exists(INDEX_FILE)) return;
  if ((await recordFileNumbers(backend)).length === 0) return;
  const segments = (await backend.list(LOG_DIR)).some((n) => /^seg-\d+\.json$/.test(n));
  if (segments || (await backend.list(OPEN_DIR)).some((n) => batchFromName(n) !== undefined)) return;
  throw new SyncomError(
    'STORE_DAMAGED',
    `${INDEX_FILE} is missing, and so is every log file, beside the record files in ${RECORDS_DIR}/: restore log/ from the same copy as records/, or move records/ away to start a new log`,
    { file: INDEX_FILE },
  );
}

/** What a rebuild of the records from the log works on. */
interface Rebuild {
  log: OpLog;
  records: RecordStore;
  committed: Map<string, Entry>;
  context: ReplayContext & { sealed: Set<string> };
  onError: (e: Error) => void;
  /** Records whose write failed: the commit pipeline writes them with its next records write (Committer.writeLater). */
  writeLater: (ids: readonly string[]) => void;
}

/**
 * Replay every entry the log holds (sealed segments and open batches,
 * merges included) onto the records, after damage to the record files: the
 * unsealed tail alone would leave out what the lost files held. The records
 * the replay changed are written to a record file of their own, so they
 * outlive the segments retention drops; a failed write is reported
 * (UNPERSISTED) and made again with the commit pipeline's next records write.
 */
async function rebuildRecords(r: Rebuild): Promise<void> {
  await replayAndWrite(r, r.log.read(r.log.floor), 'records rebuilt from the log');
}

/**
 * Replay `entries` onto the records and write those whose text they changed
 * to a record file of their own (by text, not identity: applying an op the
 * record holds makes a new entry, and each open would write a file again).
 * A failed write is made again with the commit pipeline's next (writeOrLater).
 */
async function replayAndWrite(r: Rebuild, entries: readonly Logged[], what: string): Promise<void> {
  const ids = new Set(entries.map((e) => e.op.id));
  const before = new Map([...ids].map((id) => [id, r.committed.get(id)]));
  replayLog(r.committed, entries, r.context);
  const changed = [...ids].map((id) => r.committed.get(id)).filter((e): e is Entry => {
    const was = e && before.get(e.id);
    return e !== undefined && e !== was && (!was || entryText(was) !== entryText(e));
  });
  await writeOrLater(r, changed, (e) => `${what} not written (${e.message}); held in memory and written with the next records write, the log keeping their ops until then`);
}

/** Write `list` to a record file of its own; failing, hand it to the commit pipeline's next records write, and report it (UNPERSISTED). */
async function writeOrLater(r: Rebuild, list: Entry[], message: (e: Error) => string): Promise<void> {
  try {
    await r.records.write(list, r.committed);
  } catch (e) {
    r.writeLater(list.map((x) => x.id));
    r.onError(new SyncomError('UNPERSISTED', message(e as Error), { cause: e }));
  }
}

/**
 * Apply the held ops this schema now takes (replication.md, "Hold, on every
 * path"), and write the records they changed to a record file of their own:
 * kept in memory alone, a record the node served after its upgrade was gone
 * at the open after retention dropped the ops' segment. A held op the
 * validator now refuses is reported (OP_INVALID), as a peer's is when it
 * comes, and stays in the log, judged again at each open.
 */
async function applyHeld(r: Rebuild, schema: Schema): Promise<void> {
  const held = r.log.read(r.log.floor).filter((e) => e.flags & FLAG_HELD && !stillHeld(e, schema, r.context.held));
  if (held.length === 0) return;
  let refused = 0;
  for (const e of held) if (!r.context.sealed.has(e.op.id) && validatorSays(r.context, e.op, r.committed.get(e.op.id))) refused++;
  if (refused > 0) {
    r.onError(new SyncomError('OP_INVALID', `${refused} held op(s) the schema (version ${schema.version}) now reads fail its validator: not applied; judged again at each open`, { count: refused }));
  }
  await replayAndWrite(r, held, 'records of held ops applied at open');
}

/**
 * Write the tombstones and purge markers placeRemoved placed from the log
 * to a record file of their own, now carrying their scope: no record file
 * named it (a store an earlier version wrote; a record rebuilt, or applied
 * from a held op, at this open), and once retention drops the ops that
 * removed them the log cannot either. Once written, later opens read it
 * from the file and write nothing. The ids the unsealed tail touched are
 * left to the commit pipeline, which writes them as it records the tail.
 * A failed write is made again with the commit pipeline's next (writeOrLater).
 */
async function recordPlaced(r: Rebuild, placed: readonly string[], tail: readonly Logged[]): Promise<void> {
  if (placed.length === 0) return;
  const pending = new Set(tail.map((e) => e.op.id));
  const list = placed.filter((id) => !pending.has(id)).map((id) => r.committed.get(id)).filter((e): e is Entry => e !== undefined);
  await writeOrLater(r, list, (e) => `the scopes of ${list.length} removed record(s) not written to a record file (${e.message}); written with the next records write, the log keeping their ops until then`);
}

/** What the commit pipeline tells the rest of the storage; built before the committer, from what it needs. */
function commitHooks(p: Pick<StorageParts, 'events' | 'scopes' | 'listed' | 'options' | 'keys' | 'log' | 'records' | 'sealed'>): CommitHooks {
  // Only an op made here: a peer's op with this node's origin is never signed, even if it got this far.
  const signs = (op: Op) => p.options.sync?.signatures !== false && isMadeHere(op) && op.origin === p.keys.id && op.sig === undefined;
  return {
    committed(batch) {
      for (const x of batch) if (x.after) p.scopes.rescope(x.after, x.op, x.flags);
      // The whole batch before its first event: a listener that lists sees every record of it.
      for (const x of batch) if (x.after) p.listed.touch(x.op.id);
      for (const x of batch) if (x.after) p.events.emit('change', x.op, x.via);
    },
    failed(e) {
      p.events.emit('error', e);
    },
    refused(ops, committed) {
      // A sealed write marks its id sealed as it is queued, for the writes queued after it; refused, and no record
      // committed, it is not sealed: kept so, the peers' ops of the id were skipped for good and later writes sealed.
      for (const x of ops) if (x.flags & FLAG_SEALED && !committed.has(x.op.id)) p.sealed.delete(x.op.id);
    },
    sign(op, lone) {
      if (!signs(op)) return undefined;
      // A lone op (an awaited write) is signed here: tens of microseconds, less than a round trip to a signing thread.
      const sync = lone ? platform().ed25519.sync : undefined;
      if (!sync) return signOff(op, p.keys.signPrivate);
      try {
        op.sig = sync.sign(p.keys.signPrivate, sigHeader(op));
        return undefined;
      } catch {
        // A throw here would leave submit's pending state advanced: the pipeline's own path refuses the write.
        return signOff(op, p.keys.signPrivate);
      }
    },
    signs,
    unsignedOwn: (op) => p.options.sync?.signatures === false && isMadeHere(op) && op.origin === p.keys.id,
    async scrub(ids, committed) {
      await p.log.scrub(ids, p.sealed);
      await p.records.scrub(ids, committed);
    },
  };
}

/** What loadStorage gives open(): the parts, and the errors met while reading (emitted once listeners could be added). */
export interface LoadedStorage {
  parts: StorageParts;
  startup: SyncomError[];
}

/**
 * Bring the records up to the log: the unsealed tail replayed onto them
 * (LOG-2, GUAR-7); after damage to the record files (one unreadable, or
 * records missing or older there than the log), every entry the log holds,
 * reported as OP_UNREADABLE. A clean open pays one lookup a log entry.
 */
async function replayOntoRecords(r: Rebuild & { tail: readonly LogEntry[]; damaged: boolean; entries: ReadonlyMap<string, Entry> }): Promise<void> {
  const behind = scanLog(r.log, r.entries, r.context);
  if (!r.damaged && behind.length === 0) return replayLog(r.committed, r.tail, r.context);
  // A damaged file was reported already, and explains what it held.
  if (!r.damaged) {
    const some = behind.slice(0, 3).join(', ') + (behind.length > 3 ? ', ...' : '');
    r.onError(new SyncomError('OP_UNREADABLE', `${behind.length} record(s) the log holds are missing from the record files, or older there (a record file lost, or put back from an older copy): ${some}; rebuilt from the log${lostBelow(r.log.floor)}`, { file: RECORDS_DIR, count: behind.length }));
  }
  await rebuildRecords(r);
}

/**
 * Read a storage's keys, log and record files, and replay the log onto the
 * records (replayOntoRecords): the parts open() wires the replica port, the
 * sync manager and the Storage over. The path's lock is taken already.
 *
 * @throws SyncomError STORE_TOO_NEW for a store a later version wrote in a newer format (store-format.ts).
 * @throws SyncomError STORE_DAMAGED for record files with no log beside them (and what loadKeys and the log refuse).
 */
export async function loadStorage(options: OpenOptions, backend: Backend, lock: BackendLock | undefined): Promise<LoadedStorage> {
  const events = new Emitter<StorageEvents>(undefined, STORAGE_EVENT_NAMES);
  const startup: SyncomError[] = [];
  // Until open() returns, nobody listens: errors wait in `startup`.
  const phase = { loading: true };
  const onError = (e: Error) => (phase.loading ? startup.push(e as SyncomError) : events.emit('error', e as SyncomError));
  const schema = options.schema ? createSchema(options.schema) : undefined;
  // The clock's seed is checked as each write's stamp is, and first: a broken now() fails open() with a code before anything is written or held open.
  const wall = readWall(options.now);
  // Before anything is read: a later version's store, which this one could misread (store-format.ts).
  const format = await readStoreFormat(backend);
  refuseNewerFormat(format);
  // Before anything is written: keys or a new log made here would make the damage worse.
  await refuseRecordsWithoutLog(backend);
  if (format !== STORE_FORMAT) await writeStoreFormat(backend, !!options.durable);
  const keys = await loadKeys(backend);
  const sealed = new Set<string>();
  // Read once the log is: until then (retention at the log's own open) a held op waits by its version alone.
  let held: HeldStreams | undefined;
  const { log, tail } = await OpLog.open({
    backend, durable: options.durable, rollAfter: options.sync?.log?.rollAfter, segmentOps: options.sync?.log?.segmentOps, lines: options.sync?.log?.lines, retention: options.sync?.retention,
    now: options.now, onEvent: (e) => events.emit('log', e), cipher: createLogCipher(keys, (id) => sealed.add(id)),
    onHeldLost: (lost) => events.emit('schema', { kind: 'held-lost', lost }), stillHeld: (e) => stillHeld(e, schema, held), onError, self: keys.id,
  });
  const scopes = new RecordScopes(options.sync?.scope);
  // A tombstone's or purge marker's element carries its scope: its fields are gone, and retention drops the ops that placed it.
  const cipher = withRemovedScopes(createRecordCipher(keys, (id) => sealed.has(id)), (e) => scopes.removedScope(e));
  const { store: records, entries, sealed: sealedRecords, damaged, removedScopes } = await RecordStore.load({ backend, durable: !!options.durable, onError, cipher, recycle: log.files.recycles, logFloor: log.floor });
  for (const id of sealedRecords) sealed.add(id);
  scopes.readFiles(removedScopes);
  const listed = new ListedIds();
  const committer = new Committer(log, records, commitHooks({ events, scopes, listed, options, keys, log, records, sealed }));
  for (const [id, e] of entries) committer.committed.set(id, e);
  held = HeldStreams.of(log.read(log.floor), schema?.version ?? -1, schema?.maxAhead);
  const context = { schema, sealed, committed: committer.committed, held };
  const writeLater = (ids: readonly string[]) => committer.writeLater(ids);
  await replayOntoRecords({ log, records, committed: committer.committed, context, onError, writeLater, tail, damaged, entries });
  if (schema) await applyHeld({ log, records, committed: committer.committed, context, onError, writeLater }, schema);
  for (const e of committer.committed.values()) scopes.rescope(e);
  scopes.placeFromFiles(committer.committed);
  const placed = scopes.placeRemoved(log.read(log.floor), committer.committed, (e) => !!schema && !stillHeld(e, schema, held));
  await recordPlaced({ log, records, committed: committer.committed, context, onError, writeLater }, placed, tail);
  committer.adoptTail(log.batches.map((b) => b.from), tail);
  // A purge whose scrub a crash cut short is in the tail (its batch is sealed once scrubbed): scrubbed again.
  const purged = new Set(tail.filter((e) => committer.committed.get(e.op.id)?.purged !== undefined).map((e) => e.op.id));
  const holding = log.batches.filter((b) => tail.some((e) => purged.has(e.op.id) && b.from <= e.pos && e.pos <= b.to)).map((b) => b.from);
  if (purged.size > 0) await committer.rescrub([...purged], holding).catch(onError);
  // Merge ops a crash caught between their join and their signature are signed now, in the background.
  committer.late.resume(keys.id);
  const clock = createClock(options.now, clockSeed(log, wall, options.sync?.maxSkew ?? DEFAULT_MAX_SKEW, onError));
  phase.loading = false;
  const parts: StorageParts = { options, keys, clock, log, committer, records, schema, held, events, backend, sealed, scopes, listed, state: { closed: false }, lock };
  return { parts, startup };
}

/**
 * The clock's seed: index.json's ts, unless it stands further ahead of this
 * node's clock than a peer takes a stamp (maxSkew) and ahead of every op the
 * log holds. index.json has no checksum, and one rotted digit there moved
 * every later stamp a century ahead: peers refused the node's ops as SKEW,
 * and each won every register it touched. Then the newest stamp the log
 * holds is taken, and the file reported.
 */
function clockSeed(log: OpLog, now: number, maxSkew: number, onError: (e: Error) => void): number {
  if (!(log.maxTs > now + maxSkew)) return log.maxTs;
  let held = 0;
  for (const e of log.entries) if (e && e.op.ts > held) held = e.op.ts;
  if (held >= log.maxTs) return log.maxTs;
  onError(new SyncomError('OP_UNREADABLE', `log/index.json: its clock (ts ${log.maxTs}) is more than maxSkew ahead of this node's clock and ahead of every op the log holds: the newest stamp the log holds (${held}) is taken`, { file: INDEX_FILE }));
  log.maxTs = held;
  return held;
}


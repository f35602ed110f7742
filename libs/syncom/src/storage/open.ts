import { SyncomError } from '../errors';
import { createFsBackend, createMemoryBackend } from '../backend';
import type { Backend } from '../backend/types';
import type { BackendLock } from '../backend/lock';
import { applyOp, type Entry, isEntry } from '../crdt';
import { type LogEntry, OpLog } from '../log';
import { FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED, isScrubbed } from '../op';
import { signOff } from '../op/signer';
import { createLogCipher, createRecordCipher } from '../sealed';
import { createSchema, type Schema } from '../schema';
import { createClock } from './clock';
import { Committer, type CommitHooks } from './commit';
import { Emitter } from './emitter';
import { loadKeys } from './keys';
import { isMadeHere } from './own-ops';
import type { OpenOptions } from './options';
import { RecordStore } from './records';
import { Storage, type StorageEvents } from './storage';
import { type DialOptions, SyncManager } from '../sync/manager';

function backendOf(options: OpenOptions): Backend {
  if (typeof options.backend === 'object' && options.backend !== null) return options.backend;
  if (options.backend === 'memory') return createMemoryBackend();
  return createFsBackend(options.path);
}

function checkOptions(options: OpenOptions): void {
  if (typeof options !== 'object' || options === null) throw new SyncomError('INVALID_ARGUMENT', 'open() takes an options object: open({ path })');
  if (typeof options.path !== 'string' || options.path.length === 0) throw new SyncomError('INVALID_ARGUMENT', 'open() needs a path: open({ path: "data" })');
  const sig = options.sync?.signatures;
  if (sig !== undefined && sig !== 'verify' && sig !== 'require' && sig !== false) {
    throw new SyncomError('INVALID_ARGUMENT', `sync.signatures is 'verify', 'require' or false, not ${String(sig)}`);
  }
  const t: unknown = options.telemetry;
  if (t !== undefined && t !== false && (typeof t !== 'object' || t === null)) {
    throw new SyncomError('INVALID_ARGUMENT', 'telemetry is false or { tracerProvider?, meterProvider? }');
  }
}

/** What a replay knows: the schema, and the ids this node keeps sealed. */
interface ReplayContext {
  schema?: Schema;
  sealed: ReadonlySet<string>;
}

/** Whether a logged entry is applied to the records on replay. */
function applies(e: LogEntry, c: ReplayContext): boolean {
  if (e.flags & FLAG_SKIPPED || isScrubbed(e.op) || e.op.type === 'advance') return false;
  // Only this node's sealed ops land on a sealed record: a peer's op held for a newer schema does not (GUAR-19).
  if (c.sealed.has(e.op.id) && !(e.flags & FLAG_SEALED)) return false;
  if (e.flags & FLAG_HELD) return !!c.schema && (e.op.v ?? 0) <= c.schema.version;
  return e.op.type !== 'merge' || isEntry(e.op.data, e.op.id);
}

/** Replay log entries onto the records (LOG-2, GUAR-7); also held ops a newer schema now takes. */
function replay(committed: Map<string, Entry>, entries: readonly LogEntry[], c: ReplayContext): void {
  for (const e of entries) {
    if (!applies(e, c)) continue;
    const have = committed.get(e.op.id);
    if (have?.purged && e.op.type !== 'purge') continue;
    committed.set(e.op.id, applyOp(have, e.op).entry);
  }
}

/** Add the ids the log holds sealed ops of (GUAR-19): a record file may not have them yet. */
function addSealedIds(sealed: Set<string>, log: OpLog, fromRecords: Set<string>): void {
  for (const id of fromRecords) sealed.add(id);
  for (const e of log.read(log.floor)) if (e.flags & FLAG_SEALED) sealed.add(e.op.id);
}

function commitHooks(ref: { storage?: Storage }): CommitHooks {
  return {
    committed(batch) {
      const s = ref.storage as Storage;
      for (const p of batch) if (p.after) s.rescope(p.after);
      for (const p of batch) if (p.after) s.parts.events.emit('change', p.op, p.via);
    },
    failed(e) {
      ref.storage?.parts.events.emit('error', e);
    },
    sign(op) {
      const s = ref.storage as Storage;
      // Only an op made here: a peer's op with this node's origin is never signed, even if it got this far.
      if (s.parts.options.sync?.signatures === false || !isMadeHere(op) || op.origin !== s.id || op.sig !== undefined) return undefined;
      return signOff(op, s.parts.keys.signPrivate);
    },
    async scrub(id) {
      const s = ref.storage as Storage;
      await s.parts.log.scrub(id);
      await s.parts.records.scrub(id, s.parts.committer.committed);
    },
  };
}

/**
 * Open (or create) a storage at `options.path` (DESIGN: Storage API). Makes
 * the keys at the first open, reads the log and the record files, and replays
 * the unsealed tail of the log onto the records.
 *
 * The path is this storage's alone until close(): a second open() of it, in
 * this process or another, fails with LOCKED; a lock left by a process that
 * is gone is taken over.
 *
 * @throws SyncomError INVALID_ARGUMENT for bad options.
 * @throws SyncomError LOCKED (status 423) while another open storage holds the path.
 * @example
 * const storage = await open({ path: 'data' });
 * const id = await storage.insert({ title: 'Draft' });
 */
export async function open(options: OpenOptions): Promise<Storage> {
  checkOptions(options);
  const backend = backendOf(options);
  // One owner per storage path: two open storages on one path would both take writes and lose some.
  const lock = await backend.lock?.(options.path);
  try {
    return await openLocked(options, backend, lock);
  } catch (e) {
    await lock?.release().catch(() => undefined);
    throw e;
  }
}

/** open() once the path is this storage's alone. */
async function openLocked(options: OpenOptions, backend: Backend, lock: BackendLock | undefined): Promise<Storage> {
  const events = new Emitter<StorageEvents>();
  const startup: SyncomError[] = [];
  const onError = (e: Error) => startup.push(e as SyncomError);
  const schema = options.schema ? createSchema(options.schema) : undefined;
  const keys = await loadKeys(backend);
  const ref: { storage?: Storage } = {};
  const sealed = new Set<string>();
  const { log, tail } = await OpLog.open({
    backend, durable: options.durable, rollAfter: options.sync?.log?.rollAfter, retention: options.sync?.retention,
    now: options.now, onEvent: (e) => events.emit('log', e), cipher: createLogCipher(keys),
    onHeldLost: (lost) => events.emit('schema', { kind: 'held-lost', lost }), onError: (e) => (ref.storage ? events.emit('error', e as SyncomError) : onError(e)),
  });
  const cipher = createRecordCipher(keys, (id) => sealed.has(id));
  const { store: records, entries, sealed: sealedRecords } = await RecordStore.load({ backend, durable: !!options.durable, onError, cipher });
  addSealedIds(sealed, log, sealedRecords);
  const committer = new Committer(log, records, commitHooks(ref));
  for (const [id, e] of entries) committer.committed.set(id, e);
  replay(committer.committed, tail, { schema, sealed });
  if (schema) replay(committer.committed, log.read(log.floor).filter((e) => e.flags & FLAG_HELD), { schema, sealed });
  committer.adoptTail(log.batches.map((b) => b.from), tail);
  const clock = createClock(options.now, log.maxTs);
  const storage = new Storage({ options, keys, clock, log, committer, records, schema, events, backend, sealed, lock });
  ref.storage = storage;
  for (const e of committer.committed.values()) storage.rescope(e);
  storage.sync = new SyncManager(storage, (options.sync ?? {}) as DialOptions);
  await storage.sync.init();
  if (options.sync?.connect && options.sync.autoStart !== false) await storage.sync.start();
  if (startup.length) setImmediate(() => startup.forEach((e) => events.emit('error', e)));
  return storage;
}

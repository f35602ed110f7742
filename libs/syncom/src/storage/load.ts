import { SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import type { BackendLock } from '../backend/lock';
import { applyOp, type Entry, isEntry, raisesPurge } from '../crdt';
import { type LogEntry, OpLog } from '../log';
import { FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED, isScrubbed } from '../op';
import type { Op } from '../op/types';
import { sigHeader } from '../op/sign';
import { signOff } from '../op/signer';
import { platform } from '../platform';
import { createLogCipher, createRecordCipher } from '../sealed';
import { createSchema, type Schema } from '../schema';
import { createClock } from './clock';
import { Committer, type CommitHooks } from './commit';
import { Emitter } from './emitter';
import { heldVersion } from './held-version';
import { validatorSays } from './peer';
import { ListedIds } from './listed-ids';
import { loadKeys } from './keys';
import { isMadeHere } from '../op/made';
import type { OpenOptions } from './options';
import { RecordStore } from './records';
import type { StorageEvents, StorageParts } from './parts';
import { RecordScopes } from './record-scopes';

/** What a replay knows: the schema, and the ids this node keeps sealed. */
interface ReplayContext {
  schema?: Schema;
  sealed: ReadonlySet<string>;
  /** The records replayed onto: a held op the schema now takes is validated on its record, as a peer's op is when it comes (validatorSays). */
  committed: ReadonlyMap<string, Entry>;
}

/** Whether a logged entry is applied to the records on replay. */
function applies(e: LogEntry, c: ReplayContext): boolean {
  if (e.flags & FLAG_SKIPPED || isScrubbed(e.op) || e.op.type === 'advance') return false;
  // Only this node's sealed ops land on a sealed record: a peer's op held for a newer schema does not (GUAR-19).
  if (c.sealed.has(e.op.id) && !(e.flags & FLAG_SEALED)) return false;
  if (e.flags & FLAG_HELD) return !!c.schema && heldVersion(e.op) <= c.schema.version && !validatorSays(c, e.op, c.committed.get(e.op.id));
  return e.op.type !== 'merge' || isEntry(e.op.data, e.op.id);
}

/** Replay log entries onto the records (LOG-2, GUAR-7); also held ops a newer schema now takes. */
function replay(committed: Map<string, Entry>, entries: readonly LogEntry[], c: ReplayContext): void {
  for (const e of entries) {
    if (!applies(e, c)) continue;
    const have = committed.get(e.op.id);
    // Nothing lands on a purged record but a purge, or a merge whose marker is newer (crdt/merge.ts raisesPurge).
    if (have?.purged && e.op.type !== 'purge' && !(e.op.type === 'merge' && isEntry(e.op.data, e.op.id) && raisesPurge(have, e.op.data))) continue;
    committed.set(e.op.id, applyOp(have, e.op).entry);
  }
}

/** Add the ids the log holds sealed ops of (GUAR-19): a record file may not have them yet. */
function addSealedIds(sealed: Set<string>, log: OpLog, fromRecords: Set<string>): void {
  for (const id of fromRecords) sealed.add(id);
  for (const e of log.read(log.floor)) if (e.flags & FLAG_SEALED) sealed.add(e.op.id);
}

/** What the commit pipeline tells the rest of the storage; built before the committer, from what it needs. */
function commitHooks(p: Pick<StorageParts, 'events' | 'scopes' | 'listed' | 'options' | 'keys' | 'log' | 'records'>): CommitHooks {
  // Only an op made here: a peer's op with this node's origin is never signed, even if it got this far.
  const signs = (op: Op) => p.options.sync?.signatures !== false && isMadeHere(op) && op.origin === p.keys.id && op.sig === undefined;
  return {
    committed(batch) {
      for (const x of batch) if (x.after) p.scopes.rescope(x.after);
      // The whole batch before its first event: a listener that lists sees every record of it.
      for (const x of batch) if (x.after) p.listed.touch(x.op.id);
      for (const x of batch) if (x.after) p.events.emit('change', x.op, x.via);
    },
    failed(e) {
      p.events.emit('error', e);
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
    async scrub(ids, committed) {
      await p.log.scrub(ids);
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
 * Read a storage's keys, log and record files, and replay the unsealed tail
 * of the log onto the records (LOG-2, GUAR-7): the parts open() wires the
 * replica port, the sync manager and the Storage over. The path's lock is
 * taken already.
 */
export async function loadStorage(options: OpenOptions, backend: Backend, lock: BackendLock | undefined): Promise<LoadedStorage> {
  const events = new Emitter<StorageEvents>();
  const startup: SyncomError[] = [];
  // Until open() returns, nobody listens: errors wait in `startup`.
  const phase = { loading: true };
  const onError = (e: Error) => (phase.loading ? startup.push(e as SyncomError) : events.emit('error', e as SyncomError));
  const schema = options.schema ? createSchema(options.schema) : undefined;
  const keys = await loadKeys(backend);
  const sealed = new Set<string>();
  const { log, tail } = await OpLog.open({
    backend, durable: options.durable, rollAfter: options.sync?.log?.rollAfter, segmentOps: options.sync?.log?.segmentOps, lines: options.sync?.log?.lines, retention: options.sync?.retention,
    now: options.now, onEvent: (e) => events.emit('log', e), cipher: createLogCipher(keys),
    onHeldLost: (lost) => events.emit('schema', { kind: 'held-lost', lost }), onError,
  });
  const cipher = createRecordCipher(keys, (id) => sealed.has(id));
  const { store: records, entries, sealed: sealedRecords } = await RecordStore.load({ backend, durable: !!options.durable, onError, cipher, recycle: log.files.recycles });
  addSealedIds(sealed, log, sealedRecords);
  const scopes = new RecordScopes(options.sync?.scope);
  const listed = new ListedIds();
  const committer = new Committer(log, records, commitHooks({ events, scopes, listed, options, keys, log, records }));
  for (const [id, e] of entries) committer.committed.set(id, e);
  replay(committer.committed, tail, { schema, sealed, committed: committer.committed });
  if (schema) replay(committer.committed, log.read(log.floor).filter((e) => e.flags & FLAG_HELD), { schema, sealed, committed: committer.committed });
  committer.adoptTail(log.batches.map((b) => b.from), tail);
  // Merge ops a crash caught between their join and their signature are signed now, in the background.
  committer.late.resume(keys.id);
  for (const e of committer.committed.values()) scopes.rescope(e);
  const clock = createClock(options.now, log.maxTs);
  phase.loading = false;
  const parts: StorageParts = { options, keys, clock, log, committer, records, schema, events, backend, sealed, scopes, listed, state: { closed: false }, lock };
  return { parts, startup };
}

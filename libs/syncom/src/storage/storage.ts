import { SyncomError, syncFailure } from '../errors';
import { checkOptionShape, type OptionShape } from '../open-options';
import { applyOp, type Entry, isHidden, lazyRecord } from '../crdt';
import { FLAG_SEALED } from '../op/pack';
import { platform } from '../platform';
import { GLOBAL_SCOPE, type Op } from '../op/types';
import type { SyncApi, SyncManager } from '../sync/manager';
import {
  addBody, asInvalid, assertId, assertRegisters, checkUpdate, copyFields, existing, incBody, mergedView, type OpBody, removeBody, sealsWrite, writeOptions,
} from './local-ops';
import { copyJson } from './copy-json';
import { makeOwnOp, type OwnOpBody } from './make-op';
import type { ListedRecord, RecordMeta, WriteOptions } from './options';
import { bindParts, type StorageEvents, type StorageParts } from './parts';
import { RecordHandle } from './record-handle';
import type { Replica } from './replica';

export type { StorageEvents, StorageParts } from './parts';

const LIST_OPTIONS: OptionShape = {
  scope: ['a string', (x) => typeof x === 'string'],
  limit: ['a whole number, 0 or more, or Infinity', (x) => (Number.isSafeInteger(x) && (x as number) >= 0) || x === Infinity],
  after: ['a record id', (x) => typeof x === 'string'],
};

/**
 * list()'s options, checked as open() checks its own: null had escaped as a
 * bare TypeError, a limit that is no number (`'10'` from a query string)
 * answered an empty page as if there were no records, a fractional one
 * (2.5) answered more records than it, and a misspelt key (`limt`) every record.
 * @throws SyncomError INVALID_ARGUMENT.
 */
function listOptions(o: unknown): { scope?: string; limit?: number; after?: string } {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new SyncomError('INVALID_ARGUMENT', 'list() takes options { scope?, limit?, after? }');
  return asInvalid('the list options must be readable', () => {
    const x = { ...o } as { scope?: string; limit?: number; after?: string };
    checkOptionShape(x, LIST_OPTIONS, 'list()');
    return { scope: x.scope, limit: x.limit, after: x.after };
  });
}

/**
 * A storage (DESIGN: Storage API): writes become signed ops, logged, then
 * applied to records held in memory and persisted in batches.
 */
export class Storage {
  /** This node's id: its raw Ed25519 public key, base64url (SIG-2). */
  readonly id: string;
  /** Ids of records sealed for this node alone: their ops never leave it (GUAR-19). */
  readonly sealed: ReadonlySet<string>;

  /** The sync API: dial nodes, host peers, sync events (docs/replication.md). */
  readonly sync: SyncApi;

  /**
   * Made by open(), which builds the parts, the replica port over them and
   * the sync manager over the port, in that order.
   * @param manager The sync manager: storage.sync, and what close() ends.
   * @param replica The replica port: what replication, tools and apps read of this storage beside its API.
   */
  constructor(
    private readonly parts: StorageParts, private readonly manager: SyncManager, readonly replica: Replica,
    /**
     * What open() found damaged and read past (OP_UNREADABLE: a log, record
     * or registry file it could not read), also emitted on 'error' a turn of
     * the event loop after open() resolved. Kept here for a listener that
     * comes later (a framework's: Nest 12 starts its modules' init after that
     * turn), and for a health check.
     */
    readonly startupErrors: readonly SyncomError[] = [],
  ) {
    this.id = parts.keys.id;
    this.sealed = parts.sealed;
    this.sync = manager;
    bindParts(this, parts);
  }

  /** The scope of each record a scope function placed (absent: '*'). */
  get scopes(): ReadonlyMap<string, string> {
    return this.parts.scopes.map;
  }

  private get closed(): boolean {
    return this.parts.state.closed;
  }

  /** The first close()'s work: every later call waits for it, not only for the flag. */
  private closing?: Promise<void>;

  /** Each app 'change' listener's stand-in, which hands it a copy of the op (on()). */
  private readonly copying = new WeakMap<object, (op: Op, via: StorageEvents['change'][1]) => void>();

  /**
   * Add a listener; returns the function that removes it. A 'change'
   * listener gets its own copy of the op: the op itself is the one logged,
   * signed and relayed, and a listener that edited it (`delete op.data.pin`
   * before forwarding) had changed the log and the record under the signature.
   */
  on<K extends keyof StorageEvents>(event: K, listener: (...args: StorageEvents[K]) => void): () => void {
    if (event !== 'change' || typeof listener !== 'function') return this.parts.events.on(event, listener);
    const own = listener as (...args: StorageEvents['change']) => void;
    let copy = this.copying.get(own);
    if (!copy) this.copying.set(own, (copy = (op, via) => own(copyJson(op), via && { ...via })));
    this.parts.events.on('change', copy);
    return () => this.off(event, listener);
  }

  off<K extends keyof StorageEvents>(event: K, listener: (...args: StorageEvents[K]) => void): void {
    this.parts.events.off(event, (this.copying.get(listener) as typeof listener | undefined) ?? listener);
  }

  /** A whole-record write of a new record; returns its id (OPS-3). */
  async insert(data: Record<string, unknown>, options?: WriteOptions): Promise<string> {
    const id = platform().randomUUID();
    await this.set(id, data, options);
    return id;
  }

  /** Replace the record: fields not written are gone (OPS-3). */
  set(id: string, data: Record<string, unknown>, options?: WriteOptions): Promise<void> {
    return this.local(id, () => ({ type: 'write', id, data: this.validateWrite(copyFields(data, 'data')) }), options);
  }

  /** The spec's name for set(). */
  saveData(id: string, data: Record<string, unknown>, options?: WriteOptions): Promise<void> {
    return this.set(id, data, options);
  }

  /** Write the listed fields, last writer wins per field (OPS-4). */
  update(id: string, fields: Record<string, unknown>, options?: WriteOptions): Promise<void> {
    return this.local(id, (e) => {
      const data = copyFields(fields, 'fields');
      assertRegisters(existing(e, id), data);
      this.validateUpdate(e, data);
      return { type: 'set', id, data };
    }, options);
  }

  /** update() that returns the fields' previous values. */
  async swap(id: string, fields: Record<string, unknown>, options?: WriteOptions): Promise<Record<string, unknown>> {
    const before = this.parts.committer.current(id);
    // Only the fields the update names are read: a record holding a set of 100,000 is not read for them.
    const view = before && !isHidden(before) ? lazyRecord(before) : undefined;
    const previous: Record<string, unknown> = {};
    for (const k of asInvalid('fields must be JSON', () => Object.keys(fields ?? {}))) previous[k] = copyJson(view?.[k]);
    await this.update(id, fields, options);
    return previous;
  }

  /** Add to a counter field, creating it (OPS-5, KIND-14). */
  inc(id: string, field: string, by = 1, options?: WriteOptions): Promise<void> {
    return this.local(id, (e) => incBody(e, id, field, by), options);
  }

  /** Add elements to a set field, creating it (OPS-6, KIND-14). */
  add(id: string, field: string, elements: unknown[], options?: WriteOptions): Promise<void> {
    return this.local(id, (e) => addBody(e, id, field, elements), options);
  }

  /** Remove elements this node has seen added; no op when it saw none (OPS-7, KIND-20). */
  remove(id: string, field: string, elements: unknown[], options?: WriteOptions): Promise<void> {
    return this.local(id, (e) => removeBody(e, id, field, elements), options);
  }

  /** Leave a tombstone (OPS-8); nothing to do for a record that is not there. */
  delete(id: string, options?: WriteOptions): Promise<void> {
    return this.local(id, (e) => (e && !isHidden(e) ? { type: 'delete', id } : undefined), options);
  }

  /** Erase the record for good and scrub it from the log (OPS-9, OPS-11); again, it finishes a torn scrub (GUAR-22). */
  async purge(id: string, options?: WriteOptions): Promise<void> {
    if (!this.closed && this.parts.committer.current(id)?.purged) {
      await this.parts.committer.idle();
      // As the commit's scrub does (of an id kept sealed here, this node's sealed ops only), in its turn; only of a
      // record the log holds purged: a queued purge whose append failed left it live, and scrubbing its ops then
      // erased a live record's data from the log (a peer fed that log read nothing), the call answering ok.
      if (this.parts.committer.committed.get(id)?.purged) return this.parts.committer.rescrub([id]);
    }
    return this.local(id, () => ({ type: 'purge', id }), options, true);
  }

  /** The record's fields, or undefined (missing, deleted or purged). */
  async get(id: string): Promise<Record<string, unknown> | undefined> {
    const e = this.held(id);
    return e && !isHidden(e) ? copyJson(this.view(e)) : undefined;
  }

  async has(id: string): Promise<boolean> {
    const e = this.held(id);
    return !!e && !isHidden(e);
  }

  /** Records in id order: `after` an id, at most `limit`, of one scope; a page costs the records it returns (ListedIds). */
  async list(options: { scope?: string; limit?: number; after?: string } = {}): Promise<ListedRecord[]> {
    const out: ListedRecord[] = [];
    const { scope, after, limit = Infinity } = listOptions(options);
    const committed = this.parts.committer.committed;
    const ids = this.parts.listed.of(committed, (id) => this.parts.scopes.scopeOf(id), scope);
    if (!ids) return out;
    let i = after === undefined ? 0 : ids.rank(after);
    if (after !== undefined && ids.at(i) === after) i++;
    for (; i < ids.length && out.length < limit; i++) {
      const id = ids.at(i) as string;
      const e = committed.get(id) as Entry;
      out.push({ id, data: copyJson(this.view(e)), meta: this.metaOf(e) });
    }
    return out;
  }

  /** A handle on one record: data, meta, save(), inc(), add(), remove(), delete(). */
  async record(id: string): Promise<RecordHandle | undefined> {
    const e = this.held(id);
    return e && !isHidden(e) ? new RecordHandle(this, id, copyJson(this.view(e)), this.metaOf(e)) : undefined;
  }

  /**
   * Stop sync (the dialers and every unit sync.unit() made), stop taking
   * writes, wait for the pipeline, seal the log (LIFE-24, LIFE-25). Every
   * call, concurrent or later, returns the first call's promise: once it
   * resolves the lock is released and nothing more is written.
   */
  close(): Promise<void> {
    return (this.closing ??= this.shutDown());
  }

  private async shutDown(): Promise<void> {
    this.parts.state.closed = true;
    try {
      // sync.close() ends the units before its first await: no push, feed or page is served once close() was called.
      // Whatever it meets (an app's link that throws), the writes are drained below before the lock goes.
      await this.manager.close().catch((e: unknown) => this.parts.events.emit('error', syncFailure(e)));
      // Peer ops already on their way in (a push in flight, a dialer's page) were committed; none after this.
      this.parts.committer.refuse();
      await this.parts.committer.close();
      await this.sync.flush();
      this.parts.events.removeAll();
    } finally {
      await this.parts.lock?.release();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * The head of this node's audit chain: one hash-chained block per applied
   * batch, over the previous head and the batch's ops (GUAR-23). It is this
   * node's own record of what it applied in its order, not a consensus.
   */
  chain(): string {
    return this.parts.log.chain;
  }

  /**
   * Whether a record is sealed for this node alone.
   * @throws SyncomError INVALID_ARGUMENT for an id that is none (as get()): 42 had answered false.
   */
  isSealed(id: string): boolean {
    assertId(id);
    return this.sealed.has(id);
  }

  /**
   * The scope the record is in (default '*').
   * @throws SyncomError INVALID_ARGUMENT for an id that is none (as get()): 42 had answered '*'.
   */
  scopeOf(id: string): string {
    assertId(id);
    return this.parts.scopes.scopeOf(id);
  }

  /**
   * The committed entry of a record id a read names, checked as a write checks
   * it: `get(42)` had answered undefined, as for a record that is not there,
   * hiding the caller's mistake (docs/api.md).
   * @throws SyncomError INVALID_ARGUMENT unless `id` is a string of 1-512 characters.
   */
  private held(id: unknown): Entry | undefined {
    assertId(id);
    return this.parts.committer.committed.get(id);
  }

  /** The record's meta. */
  private metaOf(e: Entry): RecordMeta {
    const meta: RecordMeta = { scope: this.scopeOf(e.id), ts: e.latest[0] };
    if (e.v !== undefined) meta.v = e.v;
    if (this.sealed.has(e.id)) meta.sealed = true;
    return meta;
  }

  /** The record's fields as read (cached per entry state; callers clone). */
  private view(e: Entry): Record<string, unknown> {
    return this.parts.scopes.view(e);
  }

  /** The scope function of sync options, over a record's data; '*' without one. */
  private scopeFor(id: string, data: Record<string, unknown>): string {
    return this.parts.scopes.scopeFor(id, data);
  }

  /** Validate a write (a fresh copy) and fold the validator's defaults into it (KIND-16). */
  private validateWrite(data: Record<string, unknown>): Record<string, unknown> {
    const schema = this.parts.schema;
    if (!schema) return data;
    const r = schema.validateWrite(data);
    if (!r.ok) throw new SyncomError('OP_INVALID', `the record is invalid: ${r.errors.join('; ')}`, { errors: r.errors });
    // The defaults are the schema's, not the caller's, and pass the checks the caller's fields passed: a default
    // named prototype, or nested past 100 levels, made an op every peer refuses as malformed and the reopen reads as damage.
    return r.data === data ? data : copyFields(r.data, "the record with its class's defaults");
  }

  /** Validate an update by the fields it sets, under the record's type, or whole where it changes the type (checkUpdate). */
  private validateUpdate(e: Entry | undefined, fields: Record<string, unknown>): void {
    const schema = this.parts.schema;
    const r = schema && checkUpdate(schema, e, fields);
    if (r && !r.ok) throw new SyncomError('OP_INVALID', `the update is invalid: ${r.errors.join('; ')}`, { errors: r.errors });
  }

  /** The scope an op of this body leaves the record in (SCOPE-4..8). */
  private scopeOfBody(e: Entry | undefined, body: OpBody): string {
    // Without a scope function every record is '*': no view of the record to build on every write.
    if (!this.parts.scopes.scoped) return GLOBAL_SCOPE;
    if (body.type === 'write') return this.scopeFor(body.id, body.data ?? {});
    if (body.type === 'set') return this.scopeFor(body.id, mergedView(e, body.data ?? {}));
    const known = this.parts.scopes.map.get(body.id);
    if (known !== undefined) return known;
    if (!e || isHidden(e)) return GLOBAL_SCOPE;
    if (body.type !== 'delete' && body.type !== 'purge') return this.scopeFor(body.id, lazyRecord(e));
    try {
      return this.scopeFor(body.id, lazyRecord(e));
    } catch {
      // A peer's record the function throws on was never placed: it is in '*' here (scopeOf), and a delete or
      // purge leaves nothing to place. Refused, the record could not be removed until the function changed.
      return GLOBAL_SCOPE;
    }
  }

  /**
   * Build, stamp, sign and queue a local op. Synchronous up to the queue, so
   * writes issued together share one log append (group commit).
   */
  private local(id: string, build: (e: Entry | undefined) => OpBody | undefined, given?: WriteOptions, afterPersist = false): Promise<void> {
    try {
      if (this.closed) throw new SyncomError('CLOSED', 'the storage is closed; writes are refused');
      assertId(id);
      const options = writeOptions(given);
      const e = this.parts.committer.current(id);
      if (e?.purged) throw new SyncomError('PURGED', `record ${id} was purged; nothing more lands on it`, { id });
      const sealed = sealsWrite(this.sealed, id, e, options?.sealed);
      const body = build(e);
      if (!body) return Promise.resolve();
      // A sealed op's scope would be in clear in the log, and a scope function reads field values (GUAR-19).
      const op = sealed ? this.makeOp(body, GLOBAL_SCOPE, { ...options, sealed }) : this.makeOp(body, this.scopeOfBody(e, body), options);
      const { entry } = applyOp(e, op);
      if (sealed) this.parts.sealed.add(id);
      return this.parts.committer.submit({ op, flags: sealed ? FLAG_SEALED : 0, via: null, after: entry, afterPersist });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Stamp, sequence and sign an op of this node (see makeOwnOp). Private: an
   * op made and not committed takes the stream's next seq, which the next
   * write takes again. The sync layer makes its merge and advance ops
   * through the replica port.
   */
  private makeOp(body: OwnOpBody, scope: string, options?: WriteOptions): Op {
    return makeOwnOp(this.parts, body, scope, options);
  }
}

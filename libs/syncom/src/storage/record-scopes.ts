import { SyncomError } from '../errors';
import { compareStamps, type Entry, isHidden, lazyRecord, readEntry, REGISTER_VALUE } from '../crdt';
import { isScopeName } from '../op/scope-name';
import { FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED } from '../op/pack';
import { removedStamp, type RemovedScope } from './record-file';

/** Log flags of an op that did not place its record: skipped here, or sealed (never served); a held one, until it lands. */
const UNPLACING = FLAG_SKIPPED | FLAG_SEALED;

/** Whether an op removes its record: a delete, a purge, or a merge whose state is a tombstone or purge marker. */
const removes = (op: { type: string; data?: unknown }): boolean =>
  op.type === 'delete' || op.type === 'purge' || (op.type === 'merge' && typeof op.data === 'object' && op.data !== null && isHidden(op.data as Entry));

/**
 * The scope a removal declares that places its tombstone wherever it lands:
 * a delete's (its writer held the record live, so even '*' is a scope it
 * knew), a purge's when it names one (a purge of an id its node never held
 * declares '*', a scope unknown). A tombstone had kept the scope its node
 * held the record in, so a delete that won over a concurrent move left it
 * in the moved-to scope where the move landed first and in the deleter's
 * elsewhere, and each reconciliation between the two logged a merge
 * (test/sim/found-by-model.spec.ts).
 */
function declaredRemoval(e: Entry, op: { type: string; scope?: unknown; ts?: unknown; origin?: unknown }): string | undefined {
  if (!isScopeName(op.scope) || typeof op.ts !== 'number' || typeof op.origin !== 'string') return undefined;
  const stamp = [op.ts, op.origin] as const;
  if (op.type === 'delete') return !e.purged && e.del === true && e.reset !== undefined && compareStamps(e.reset, stamp) === 0 ? op.scope : undefined;
  if (op.type === 'purge' && op.scope !== '*') return e.purged !== undefined && compareStamps(e.purged, stamp) === 0 ? op.scope : undefined;
  return undefined;
}

/** The scope function of open({ sync: { scope } }). */
export type ScopeFunction = (id: string, data: Record<string, unknown>) => string;

/**
 * The scope rule the hub uses (SYNCOM_SCOPE_FIELD, `$type` by default): a record's scope is
 * `data[field]` when that is a non-empty string, else '*'. A node writing to a hub whose tokens are
 * bound to scopes must place its records by the same rule (exact scopes: an op declaring another
 * scope than the hub's rule gives its record is refused OUT_OF_SCOPE).
 *
 * @example
 * open({ path, sync: { scope: scopeByField('$type'), connect } })
 */
export function scopeByField(field: string): ScopeFunction {
  return (_id, data) => {
    // Only a register holds a string: a record's view answers its value without reading a set or counter field whole.
    const peek = (data as { [REGISTER_VALUE]?: unknown })[REGISTER_VALUE];
    const value = typeof peek === 'function' ? (peek as (name: string) => unknown)(field) : data[field];
    return typeof value === 'string' && value !== '' ? value : '*';
  };
}

/**
 * The scope each record is in (Scopes), computed from the record's fields
 * as the scope function reads them (lazyRecord), and the records' read
 * views. Built before the commit pipeline, which rescopes every record a
 * batch changed at its commit point.
 */
export class RecordScopes {
  /** The scope of each record a scope function placed; absent means '*'. */
  readonly map = new Map<string, string>();
  private readonly views = new WeakMap<Entry, Record<string, unknown>>();
  /** The scopes the record files name (readFiles), from the read at open until placeFromFiles. */
  private found: ReadonlyMap<string, RemovedScope> = new Map();

  constructor(private readonly fn: ScopeFunction | undefined) {}

  /** Whether a scope function is set: without one every record is '*'. */
  get scoped(): boolean {
    return this.fn !== undefined;
  }

  /** The scope the record is in (default '*'). */
  scopeOf(id: string): string {
    return this.map.get(id) ?? '*';
  }

  /**
   * The scope function over a record's data; '*' without one. Its answer must
   * be a scope name (op/scope-name.ts: 1-128 characters, no '<'): a record's
   * data may come from a peer (a hub's scope is a field of it), and a name
   * holding '<' would read back from its stream keys as another scope.
   * The function reads a null-prototype object whatever the record was: a
   * write's data and a new record's fields (plain objects) are copied into
   * one, as a live record's view (lazyRecord) is. Handed as they were, a
   * function reading `data.toString` or asking `in` placed a record in one
   * scope at its write and in another at its commit, and at a host.
   * @throws SyncomError INVALID_ARGUMENT when it gives no scope name (or whatever it throws).
   */
  scopeFor(id: string, data: Record<string, unknown>): string {
    if (!this.fn) return '*';
    let s: unknown;
    try {
      s = this.fn(id, Object.getPrototypeOf(data) === null ? data : Object.assign(Object.create(null) as Record<string, unknown>, data));
    } catch (cause) {
      // The app's own throw, coded as a bad return is: a write fails with a code its caller can match.
      throw new SyncomError('INVALID_ARGUMENT', `the scope function threw for ${id}: ${String((cause as Error)?.message ?? cause).slice(0, 200)}`, { cause });
    }
    if (!isScopeName(s)) throw new SyncomError('INVALID_ARGUMENT', `the scope function gave ${JSON.stringify(String(s).slice(0, 140))} for ${id}: a scope is 1-128 characters without '<' or control characters`);
    return s;
  }

  /**
   * Recompute a record's scope from its data (after `op`, when given, changed it). A
   * tombstone or purge marker has no field to place it by: the delete (or a purge
   * naming a scope) its state holds places it where it declares (declaredRemoval),
   * on every node alike; else it keeps the scope it had, or, for one this node never
   * held live, the scope the op that made it declares (the record's as it left it,
   * which its writer's scope function gave). Left in '*', it was served to peers of
   * every scope (snapshot, reconciliation). `flags`: the op's log flags.
   */
  rescope(e: Entry, op?: { type: string; scope?: unknown; data?: unknown; ts?: unknown; origin?: unknown }, flags = 0): void {
    // Without a scope function every record is '*' (scopeOf's default): nothing to keep.
    if (!this.fn) return;
    if (e.purged || isHidden(e)) {
      // A sealed or skipped op places nothing by its declaration, as placeRemoved skips it at the next open.
      const declared = op && (flags & UNPLACING) === 0 ? declaredRemoval(e, op) : undefined;
      if (declared !== undefined) return void this.map.set(e.id, declared);
      // '*' is left unset: a scope unknown here, which the host's boundary tells apart (declaresHostScope).
      // Only an op that removes the record places it, as placeRemoved reads it at the next open: a write stamped before the delete lands without doing so.
      if (op && removes(op) && !this.map.has(e.id) && op.scope !== '*' && isScopeName(op.scope)) this.map.set(e.id, op.scope);
      return;
    }
    try {
      // Read on demand: each op's commit rescopes its record, which may be far larger than what the function reads.
      this.map.set(e.id, this.scopeFor(e.id, lazyRecord(e)));
    } catch {
      // A scope function that throws leaves the record where it was (SCOPE-18 is the host's refusal).
    }
  }

  /**
   * The scope a record file's element of a removed record carries
   * (record-file.ts, withRemovedScopes): the one it is in, unless '*',
   * which placeRemoved never places either.
   */
  removedScope(e: Entry): string | undefined {
    if (!this.fn) return undefined;
    const scope = this.map.get(e.id) ?? this.named(e);
    return scope === '*' ? undefined : scope;
  }

  /**
   * Take the scopes the record files name (RecordJoin), before anything is
   * written at open: a rebuild's or a held op's write there may merge older
   * files, rewriting their entries through removedScope before placeFromFiles
   * placed them, and a merged file that dropped the member lost the scope
   * to the log's retention (test/storage/removed-scopes.spec.ts).
   */
  readFiles(found: ReadonlyMap<string, RemovedScope>): void {
    this.found = found;
  }

  /** The scope a record file names for `e`'s removed state, until placeFromFiles placed them. */
  private named(e: Entry): string | undefined {
    const f = this.found.get(e.id);
    return f && isHidden(e) && compareStamps(removedStamp(e), f.stamp) === 0 ? f.scope : undefined;
  }

  /**
   * At open, the scope of each tombstone and purge marker whose newest
   * record file element names one (readFiles), when that element holds the state the
   * record is in: a record the log's unsealed tail changed since (written
   * again, deleted again) is left to placeRemoved. The record file outlives
   * the ops retention drops (docs/guarantees.md, "A removed record's scope").
   */
  placeFromFiles(committed: ReadonlyMap<string, Entry>): void {
    if (this.fn) {
      for (const id of this.found.keys()) {
        const e = committed.get(id);
        const scope = e && !this.map.has(id) ? this.named(e) : undefined;
        if (scope !== undefined && scope !== '*') this.map.set(id, scope);
      }
    }
    this.found = new Map();
  }

  /**
   * At open, the scope of each tombstone and purge marker (its fields gone)
   * that no record file placed (placeFromFiles: a store an earlier version
   * wrote, a record the tail removed, one rebuilt or applied at this open).
   * Read from the retained log, in order: the last op that landed (not skipped, held or sealed) and removed
   * the record — a delete, a purge, a merge bringing a tombstone or marker —
   * declaring a scope other than '*' (which a commit leaves unset too). An op
   * that landed on the tombstone without bringing it back (a write stamped
   * before the delete, declared where its writer held the record) moves it
   * no more than it did at its commit. A record neither names stays in '*'
   * (docs/security.md, What stays open). A held op counts once
   * `landed` says this schema applies it (a tombstone held for a newer
   * schema lands at the open that has it, with no commit to place it).
   * Returns the ids it placed, whose record files do not say so yet.
   */
  placeRemoved<L extends { op: { id: string; type: string; scope?: unknown; data?: unknown }; flags: number }>(log: Iterable<L>, committed: ReadonlyMap<string, Entry>, landed: (held: L) => boolean = () => false): string[] {
    if (!this.fn) return [];
    const last = new Map<string, string>();
    /** Ids the removal their state holds placed (declaredRemoval): an earlier removal's scope no longer counts. */
    const fixed = new Set<string>();
    for (const x of log) {
      const { op, flags } = x;
      if ((flags & UNPLACING) !== 0 || ((flags & FLAG_HELD) !== 0 && !landed(x)) || !removes(op) || !isScopeName(op.scope)) continue;
      const e = committed.get(op.id);
      if (!e || !(e.purged || isHidden(e)) || this.map.has(op.id)) continue;
      const declared = declaredRemoval(e, op as Parameters<typeof declaredRemoval>[1]);
      if (declared !== undefined) (last.set(op.id, declared), fixed.add(op.id));
      else if (op.scope !== '*' && !fixed.has(op.id)) last.set(op.id, op.scope);
    }
    for (const [id, scope] of last) this.map.set(id, scope);
    return [...last.keys()];
  }

  /** The record's fields as read (cached per entry state; callers clone). */
  view(e: Entry): Record<string, unknown> {
    let v = this.views.get(e);
    if (!v) this.views.set(e, (v = readEntry(e)));
    return v;
  }
}

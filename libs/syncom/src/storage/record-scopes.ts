import { SyncomError } from '../errors';
import { type Entry, isHidden, lazyRecord, readEntry } from '../crdt';
import { isScopeName } from '../op/scope-name';

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
    const value = data[field];
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

  /** Recompute a record's scope from its data (after an op changed it). */
  rescope(e: Entry): void {
    // Without a scope function every record is '*' (scopeOf's default): nothing to keep.
    if (!this.fn || e.purged || isHidden(e)) return;
    try {
      // Read on demand: each op's commit rescopes its record, which may be far larger than what the function reads.
      this.map.set(e.id, this.scopeFor(e.id, lazyRecord(e)));
    } catch {
      // A scope function that throws leaves the record where it was (SCOPE-18 is the host's refusal).
    }
  }

  /** The record's fields as read (cached per entry state; callers clone). */
  view(e: Entry): Record<string, unknown> {
    let v = this.views.get(e);
    if (!v) this.views.set(e, (v = readEntry(e)));
    return v;
  }
}

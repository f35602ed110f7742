import { SyncomError } from '../../errors';
import { applyOp, type Entry, isHidden, lazyRecord } from '../../crdt';
import { isScrubbed } from '../../op/payload';
import type { Op, Vector } from '../../op/types';
import { isScopeName, MAX_SCOPE_NAME, MAX_SCOPE_NAMES } from '../../op/scope-name';
import { everyItem } from './versions';
import { vectorKeys } from '../../log/vector';
import { keyScope } from '../../op/types';

/** The scopes a peer may read and write: what it was granted, plus the global scope (SCOPE-3). */
export function allowedScopes(granted: readonly string[]): Set<string> | 'all' {
  return granted.includes('*') ? 'all' : new Set([...granted, '*']);
}

const allowedOf = new WeakMap<readonly string[], Set<string> | 'all'>();

/** allowedScopes of a list, kept per list object: a dialer asks it for every op it might push. */
export function allowedFor(granted: readonly string[]): Set<string> | 'all' {
  let a = allowedOf.get(granted);
  if (!a) allowedOf.set(granted, (a = allowedScopes(granted)));
  return a;
}

export { isScopeName, MAX_SCOPE_NAME, MAX_SCOPE_NAMES } from '../../op/scope-name';

/**
 * The scopes a changes or snapshot call asks for, held to hello's rule: at
 * most MAX_SCOPE_NAMES names, each an isScopeName. Absent (or null) asks for
 * none. A feed's names key its shared reads and join a room each, so a name's
 * length and their count are bounded before anything keeps them.
 * @throws SyncomError 400 BAD_REQUEST when `asked` is present and no such list.
 */
function askedScopes(asked: unknown): string[] {
  if (asked === undefined || asked === null) return [];
  if (!Array.isArray(asked) || asked.length > MAX_SCOPE_NAMES || !everyItem(asked, isScopeName)) {
    const why = `scopes must be a list of at most ${MAX_SCOPE_NAMES} names of 1-${MAX_SCOPE_NAME} characters without '<' or control characters`;
    throw new SyncomError('BAD_REQUEST', why, { status: 400 });
  }
  return [...(asked as string[])];
}

/**
 * What a feed or snapshot serves: the intersection of what is asked and what
 * was granted; '*' or nothing asks for the granted list (SCOPE-20, SCOPE-21).
 * @throws SyncomError 400 BAD_REQUEST when `asked` is no list of scope names (askedScopes).
 * @throws SyncomError 403 SCOPES when only ungranted scopes are asked (SCOPE-22).
 */
export function servedScopes(asked: unknown, granted: readonly string[]): string[] {
  const list = askedScopes(asked);
  if (list.length === 0 || list.includes('*')) return [...granted];
  if (granted.includes('*')) return list;
  const isGranted = scopeSet(granted);
  const both = list.filter((s) => isGranted.has(s));
  if (both.length === 0) throw new SyncomError('SCOPES', `scopes ${list.join(', ')} were not granted`, { status: 403 });
  return both;
}

/** Whether a record in `scope` is served to a feed of `served` scopes ('*' records reach everyone, SCOPE-9). */
export function inServed(scope: string | undefined, served: readonly string[]): boolean {
  if (scope === undefined || scope === '*') return true;
  // Looked up, not scanned: a hello may name up to MAX_HELLO_SCOPES, checked once per op or record served.
  const set = scopeSet(served);
  return set.has('*') || set.has(scope);
}

const setOf = new WeakMap<readonly string[], Set<string>>();

/** A list of scopes as a Set, kept per list object (a feed's served list is one array for its life). */
function scopeSet(list: readonly string[]): Set<string> {
  let s = setOf.get(list);
  if (!s) setOf.set(list, (s = new Set(list)));
  return s;
}

/** The origin of a vector key (op/types.ts, beside streamKey, which makes the keys). */
export { keyOrigin } from '../../op/types';

export { keyScope } from '../../op/types';

/**
 * The part of a vector a scoped snapshot covers (SCOPE-20, BOOT-5): a dialer
 * adopting it must not count another scope's ops as had — they would be
 * dropped as duplicates when a fuller node sends them.
 */
export function servedVector(vector: Readonly<Vector>, served: readonly string[]): Vector {
  if (served.includes('*')) return { ...vector };
  // Read through the vector's keys by scope: a peer of one scope costs its streams, not every scope's.
  const { byScope } = vectorKeys(vector);
  const out: [string, number][] = [];
  for (const scope of new Set([...served, '*'])) for (const k of byScope.get(scope) ?? []) out.push([k, vector[k]]);
  return Object.fromEntries(out);
}

/** How many entries servedVector(vector, served) holds, read from the vector's keys by scope. */
export function servedCount(vector: Readonly<Vector>, served: readonly string[]): number {
  const { byScope, size } = vectorKeys(vector);
  if (served.includes('*')) return size;
  let n = 0;
  for (const scope of new Set([...served, '*'])) n += byScope.get(scope)?.length ?? 0;
  return n;
}

/** How the host scopes records: its scope function, and the scope it last knew a record in (a tombstone keeps it). */
export interface HostScoping {
  scopeOf(id: string, data: Record<string, unknown>): string;
  lastScope(id: string): string | undefined;
}

/** The scope of the record before an op: its data's, or the one it had when it was deleted. */
function scopeBefore(id: string, entry: Entry | undefined, s: HostScoping): string | undefined {
  if (!entry) return undefined;
  return isHidden(entry) ? s.lastScope(id) : s.scopeOf(id, lazyRecord(entry));
}

/**
 * The host's scope boundary for a pushed op (SCOPE-12, SCOPE-14..18): the
 * declared scope, the record's scope before the op — a tombstone's too, so a
 * peer can neither revive nor purge a deleted record of another scope — and
 * after it must all be ones the peer may write (of a scrubbed op, which
 * carries no record state, the first two); a scope function that throws
 * refuses the op. `after`, when given, is applyOp(entry, op).entry, which
 * the caller made already (a page's scope walk): it is not made again.
 */
export function opInScope(op: Op, entry: Entry | undefined, allowed: Set<string> | 'all', scoping: HostScoping, exact = false, after?: Entry): boolean {
  if (exact && !declaresHostScope(op, entry, scoping, after)) return false;
  if (allowed === 'all') return true;
  if (!allowed.has(op.scope ?? '*')) return false;
  if (op.type === 'advance') return true;
  try {
    const before = scopeBefore(op.id, entry, scoping);
    if (before !== undefined && !allowed.has(before)) return false;
    // A scrubbed op (its record purged where it was logged) carries no record state to place: one judged by
    // applying it threw, and a dialer's scrubbed merge of a purged record was refused here, its stream stopped for good.
    if (isScrubbed(op)) return true;
    const left = after ?? applyOp(entry, op).entry;
    return isHidden(left) || allowed.has(scoping.scopeOf(op.id, lazyRecord(left)));
  } catch {
    return false;
  }
}

/**
 * Whether an op declares the scope this host gives its record as the op leaves it: the record's
 * scope after the op, or before it for one that hides the record (a delete, a purge). Feeds serve
 * ops by the scope they declare, so where tokens are bound to scopes a writer whose scope rule
 * differs from the host's would reach subscribers of scopes its record is not in; a unit with
 * `exactScopes` refuses such an op, from any peer. An advance and a scrubbed op carry no record
 * state to scope, and pass.
 */
function declaresHostScope(op: Op, entry: Entry | undefined, s: HostScoping, after?: Entry): boolean {
  if (op.type === 'advance' || isScrubbed(op)) return true;
  try {
    const left = after ?? applyOp(entry, op).entry;
    if (!isHidden(left)) return (op.scope ?? '*') === s.scopeOf(op.id, lazyRecord(left));
    const known = scopeBefore(op.id, entry, s) ?? s.lastScope(op.id);
    const declared = op.scope ?? '*';
    if (known !== undefined || declared === '*') return declared === (known ?? '*');
    // No scope here to hold it to: a purge of a record this host never held (made and purged before its first
    // push, its write scrubbed), a delete of one, a merge of its tombstone (which a node that never held it live
    // declares in the scope its host named, removedScopes), or an op meeting such a purge (logged scrubbed, a
    // merge's marker alone). None carries a record's fields on, and refusing it would stop its writer's stream
    // of that scope here for good.
    return op.type === 'purge' || op.type === 'delete' || op.type === 'merge' || left.purged !== undefined;
  } catch {
    return false;
  }
}

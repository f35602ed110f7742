import { SyncomError } from '../errors';
import { applyOp, type Entry, isHidden, readEntry } from '../crdt';
import type { Op } from '../op/types';

/** The scopes a peer may read and write: what it was granted, plus the global scope (SCOPE-3). */
export function allowedScopes(granted: readonly string[]): Set<string> | 'all' {
  return granted.includes('*') ? 'all' : new Set([...granted, '*']);
}

/**
 * What a feed or snapshot serves: the intersection of what is asked and what
 * was granted; '*' or nothing asks for the granted list (SCOPE-20, SCOPE-21).
 * @throws SyncomError 403 SCOPES when only ungranted scopes are asked (SCOPE-22).
 */
export function servedScopes(asked: unknown, granted: readonly string[]): string[] {
  const list = Array.isArray(asked) ? asked.filter((s): s is string => typeof s === 'string') : [];
  if (list.length === 0 || list.includes('*')) return [...granted];
  if (granted.includes('*')) return list;
  const both = list.filter((s) => granted.includes(s));
  if (both.length === 0) throw new SyncomError('SCOPES', `scopes ${list.join(', ')} were not granted`, { status: 403 });
  return both;
}

/** Whether a record in `scope` is served to a feed of `served` scopes ('*' records reach everyone, SCOPE-9). */
export function inServed(scope: string | undefined, served: readonly string[]): boolean {
  return scope === undefined || scope === '*' || served.includes('*') || served.includes(scope);
}

/**
 * The host's scope boundary for a pushed op (SCOPE-12, SCOPE-14..18): the
 * declared scope, the record's scope before the op and after it must all be
 * ones the peer may write; a scope function that throws refuses the op.
 */
export function opInScope(
  op: Op,
  entry: Entry | undefined,
  allowed: Set<string> | 'all',
  scopeOf: (id: string, data: Record<string, unknown>) => string,
): boolean {
  if (allowed === 'all') return true;
  if (!allowed.has(op.scope ?? '*')) return false;
  if (op.type === 'advance') return true;
  try {
    if (entry && !isHidden(entry) && !allowed.has(scopeOf(op.id, readEntry(entry)))) return false;
    const after = applyOp(entry, op).entry;
    return isHidden(after) || allowed.has(scopeOf(op.id, readEntry(after)));
  } catch {
    return false;
  }
}

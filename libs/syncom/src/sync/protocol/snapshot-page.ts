import { type Entry, isEntry } from '../../crdt';
import { isCount, isPlainObject, isVector } from '../../op/shape';
import { isScopeName } from '../../op/scope-name';
import type { Vector } from '../../op/types';

/** One snapshot page as the host answers it (inline), or the id of its NDJSON stream. */
export interface SnapshotPage {
  token: string;
  /** Offset of the next page; null on the last. */
  next: number | null;
  total: number;
  entries?: Entry[];
  stream?: string;
  count: number;
  /** As of the first page: what the state covers and where to resume the feed (BOOT-5, BOOT-6). */
  vector?: Vector;
  eventId?: string;
  /**
   * The scope of each tombstone and purge marker of the page the host holds
   * in a scope other than '*': it has no field left to place it by, and the
   * dialer's merge op of it declares this scope (placed in '*', it reached
   * peers of every scope).
   */
  removedScopes?: Record<string, string>;
}

/** Why a host's snapshot page was not taken: code PAGE_FAILED, as the dialer reports it. */
export interface PageRefusal {
  ok: false;
  code: 'PAGE_FAILED';
  reason: string;
}

/** A snapshot page as the dialer takes it, or why not. */
export type PageRead = { ok: true; page: SnapshotPage } | PageRefusal;

const refuse = (reason: string): PageRefusal => ({ ok: false, code: 'PAGE_FAILED', reason: `snapshot page: ${reason}` });
const isId = (x: unknown): x is string => typeof x === 'string' && x.length > 0 && x.length <= 64;

/** The first entry of a list that is no entry of its own id, or -1. */
function badEntry(entries: unknown[]): number {
  return entries.findIndex((e) => {
    const id = (e as { id?: unknown } | null)?.id;
    return typeof id !== 'string' || !isEntry(e, id);
  });
}

/**
 * Read a host's answer to `snapshot` (PROTO-7, BOOT-2): a token, the next
 * offset past `offset` (or null on the last page), a total, and either
 * entries inline or the id of an NDJSON stream; the first page's vector
 * and event id as the host names them. Everything the dialer would use
 * unchecked — a vector it adopts, an offset it pages to — is checked here.
 * Never throws.
 */
export function readSnapshotPage(x: unknown, offset: number): PageRead {
  try {
    if (!isPlainObject(x)) return refuse('not an object');
    if (!isId(x.token)) return refuse('no token');
    // A next at or before this page's offset would page forever.
    if (x.next !== null && x.next !== undefined && !(isCount(x.next, 0) && x.next > offset)) return refuse('next is no offset past this page');
    if (x.total !== undefined && !isCount(x.total, 0)) return refuse('total is no count');
    if (x.stream !== undefined && !isId(x.stream)) return refuse('stream is no stream id');
    if (x.entries !== undefined && (!Array.isArray(x.entries) || x.stream !== undefined)) return refuse('entries is no list beside no stream');
    if (Array.isArray(x.entries) && badEntry(x.entries) >= 0) return refuse(`entry ${badEntry(x.entries)} is malformed`);
    if (x.vector !== undefined && !isVector(x.vector)) return refuse('vector is no version vector');
    if (x.eventId !== undefined && !isId(x.eventId)) return refuse('eventId is no event id');
    if (x.removedScopes !== undefined && !isRemovedScopes(x.removedScopes, Array.isArray(x.entries) ? x.entries.length : x.count)) return refuse('removedScopes is no map of ids to scope names');
    const entries = x.entries as SnapshotPage['entries'];
    const page: SnapshotPage = { token: x.token, next: (x.next as number | undefined) ?? null, total: (x.total as number | undefined) ?? 0, count: entries?.length ?? 0 };
    if (entries) page.entries = entries;
    if (x.stream !== undefined) page.stream = x.stream as string;
    if (x.vector !== undefined) page.vector = x.vector as SnapshotPage['vector'];
    if (x.eventId !== undefined) page.eventId = x.eventId as string;
    if (x.removedScopes !== undefined) page.removedScopes = x.removedScopes as Record<string, string>;
    return { ok: true, page };
  } catch {
    return refuse('unreadable');
  }
}

/** A page's (or a records answer's) removedScopes: no more ids than it has records, each naming a scope. */
export function isRemovedScopes(x: unknown, records: unknown): boolean {
  if (!isPlainObject(x)) return false;
  const ids = Object.keys(x);
  return ids.length <= (isCount(records, 0) ? records : 0) && ids.every((id) => isScopeName(x[id]));
}

/** What an NDJSON stream held: its entries, or why not. */
export type NdjsonRead = { ok: true; entries: unknown[] } | PageRefusal;

/**
 * Read a streamed snapshot page: NDJSON, one entry a line, blank lines
 * skipped. A line that is no JSON (a cut stream) or no entry refuses the
 * page. Never throws.
 */
export function readNdjson(text: string): NdjsonRead {
  if (typeof text !== 'string') return refuse('a stream that is no text');
  const entries: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].length === 0) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(lines[i]);
    } catch {
      return refuse(`stream line ${i + 1} is no JSON`);
    }
    entries.push(entry);
  }
  const bad = badEntry(entries);
  return bad < 0 ? { ok: true, entries } : refuse(`stream entry ${bad} is malformed`);
}

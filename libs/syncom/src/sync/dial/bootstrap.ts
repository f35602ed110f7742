import type { Span } from '@opentelemetry/api';
import { SyncomError } from '../../errors';
import { type Entry, heldEntry, isEntry, joinEntries, newestTs, raisesPurge } from '../../crdt';
import type { SyncLink } from '../../link/contract';
import { FLAG_GRANTED } from '../../log/op-log';
import { DEFAULT_MAX_SKEW, tooFarAhead } from '../../op';
import type { Vector } from '../../op/types';
import type { Via } from '../../storage/commit';
import type { Replica } from '../../storage/replica';
import { ATTRS, type SyncTelemetry } from '../../telemetry';
import type { SnapshotPage } from '../protocol/snapshot-page';
import { readNdjson, readSnapshotPage } from '../protocol/snapshot-page';
import { HeldJoins } from './join-hold';
import { mergeScope } from './merge-scope';
import { keyScope, servedVector } from '../protocol/scopes';
import { joinedUnchanged } from './join-unchanged';
import { othersOf } from './own-streams';
import { positiveInt } from '../protocol/frames';
import { platform } from '../../platform';

/**
 * The most a streamed snapshot page may hold by default (DialOptions.maxPageBytes): 64 MiB, sixteen
 * times a host's default pageBytes. Only a page of one record above the host's pageBytes is streamed,
 * so this is the largest record a bootstrap takes; the host's own pageBytes is not told in hello.
 */
export const DEFAULT_MAX_PAGE_BYTES = 64 * 2 ** 20;

/** What a chunk counts at least against the bound: a host streaming empty chunks would otherwise never reach it. */
const CHUNK_FLOOR = 1024;

/**
 * Read a streamed snapshot page: NDJSON, one entry a line, at most
 * `maxBytes` of it. The host decides how long its stream runs: past the
 * bound the page fails and the pull stops (the link tells the host to drop
 * the stream). Every chunk waits for a macrotask: on a link whose chunks
 * come in microtasks (in process) an endless stream held the event loop.
 */
async function readStream(link: SyncLink, id: string, maxBytes: number): Promise<unknown[]> {
  if (!link.stream) throw new SyncomError('PAGE_FAILED', 'the host streamed a page to a link that cannot stream');
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of link.stream(id)) {
    bytes += Math.max(chunk.byteLength, CHUNK_FLOOR);
    if (bytes > maxBytes) {
      throw new SyncomError('PAGE_FAILED', `a streamed snapshot page is over ${maxBytes} bytes: raise sync.maxPageBytes if the host holds records that large`, { limit: maxBytes });
    }
    text += decoder.decode(chunk, { stream: true });
    await new Promise<void>((resolve) => platform().macrotask(resolve));
  }
  text += decoder.decode();
  const read = readNdjson(text);
  if (!read.ok) throw new SyncomError(read.code, read.reason);
  return read.entries;
}

/** The most a streamed snapshot page may hold (sync.maxPageBytes). @throws SyncomError INVALID_ARGUMENT for no positive integer. */
function maxPageBytes(replica: Replica): number {
  return positiveInt(replica.options.sync?.maxPageBytes, DEFAULT_MAX_PAGE_BYTES, 'sync.maxPageBytes');
}

/** Whether joined state is signed after its append (sync.signLate, default true). */
function signsLate(replica: Replica): boolean {
  return replica.options.sync?.signLate !== false;
}

/**
 * Join one page as one batch of merge ops of this node's own (BOOT-4,
 * SIG-22), marked from the host so they never go back to it. They are signed
 * after the append, in the background (late): the page's records are
 * readable at once, and nothing sends them out before their sig (whenSigned). Reconciliation
 * joins the records it fetched the same way. The rules of a live op hold: a
 * purged record takes nothing (OPS-10), a purge marker scrubs the id (the
 * commit pipeline does it), and a newer schema's state waits held under
 * `ahead: 'hold'` (GUAR-26; the ids held go to `heldIds`).
 */
export function joinPage(replica: Replica, entries: unknown[], host: string, via: Via, o: { heldIds?: Set<string>; removedScopes?: Record<string, string> } = {}): Promise<void>[] {
  checkPage(replica, entries, true);
  return joinChecked(replica, entries as Entry[], { host, via, ...o });
}

/**
 * Refuse a page before any of it is submitted, so a refused page leaves
 * nothing half joined: an entry that is no entry of its id (unless `shapes`
 * is false: readSnapshotPage and readNdjson checked them), or one stamped
 * more than maxSkew ahead, which would win against every later write here
 * and drag the clock along (GUAR-5).
 */
function checkPage(replica: Replica, entries: unknown[], shapes: boolean): void {
  const maxSkew = replica.options.sync?.maxSkew ?? DEFAULT_MAX_SKEW;
  const now = replica.now();
  for (const raw of entries) {
    const id = (raw as Entry)?.id;
    if (shapes && (typeof id !== 'string' || !isEntry(raw, id))) throw new SyncomError('PAGE_FAILED', 'a snapshot page carries a malformed entry');
    const ts = newestTs(raw as Entry);
    if (tooFarAhead(ts, now, maxSkew)) throw new SyncomError('PAGE_FAILED', `a snapshot entry is stamped ${ts}, over ${maxSkew} ms ahead or past the latest date (SKEW)`);
  }
}

/** joinPage past its checks. */
function joinChecked(replica: Replica, entries: Entry[], o: { host: string; via: Via; heldIds?: Set<string>; removedScopes?: Record<string, string> }): Promise<void>[] {
  const { host, via, heldIds, removedScopes } = o;
  const out: Promise<void>[] = [];
  // One promise for the page's merges; each is queued at once all the same, as its seq follows the last queued.
  const merges = replica.submitGroup();
  const late = signsLate(replica);
  const held = new HeldJoins(replica);
  for (const raw of entries) {
    const { id } = raw;
    if (replica.isSealed(id)) continue;
    replica.observe(raw.latest[0]);
    const current = replica.current(id);
    // A purge is final (OPS-10): nothing joins a purged record but a newer purge marker (which its join is),
    // so the marker is the newest purge's whatever the order (GUAR-1), and no payload of it enters the log.
    if (current?.purged && !raisesPurge(current, raw)) continue;
    if (held.holds(raw)) {
      heldIds?.add(id);
      const p = held.hold(raw, host, via, removedScopes);
      if (p) out.push(p);
      continue;
    }
    const joined = current ? joinEntries(current, raw) : heldEntry(raw);
    // The snapshot brings nothing new for this record (a dialer's own records, pushed before it bootstraps): no merge op.
    if (joinedUnchanged(current, joined, raw)) continue;
    const op = replica.makeOp({ type: 'merge', id, from: host, data: (joined.purged ? joined : raw) as never, late }, mergeScope(replica, id, joined, removedScopes));
    // What applyOp(current, op) gives: the join again (joins are idempotent), so not computed twice.
    merges.add({ op, flags: 0, via, after: joined, late });
  }
  out.push(merges.end());
  return out;
}

/**
 * Log the advance ops that adopt the host's vector (BOOT-5, OPS-13): one per
 * scope the vector has streams of, each holding those streams, in that scope
 * (the plain origins in '*'). They grant here and replay on reopen, signed
 * late as the merges are. One advance of the whole vector travelled as a
 * global op to peers of every scope, each of which read from it the names of
 * the others and how much each origin wrote there (docs/security.md); a feed
 * serves a scope's advance to that scope's peers, who need its streams
 * granted (BOOT-11), as it serves the merges. Returns the streams adopted:
 * the host held them, which the dialer's copy of its vector must say too.
 */
export async function adopt(replica: Replica, host: string, vector: Vector, via: Via, scopes: readonly string[]): Promise<Vector> {
  const late = signsLate(replica);
  const byScope = new Map<string, Vector>([['*', {}]]);
  // A granted advance moves the vector it holds, own streams too: the host's word for those is not taken. Nor is it
  // for the scopes this node did not ask for: an honest host serves none of them (servedVector), and each scope
  // adopted is an advance op signed and logged (a vector naming 2,000 others made 2,000 at each bootstrap).
  const others = othersOf(servedVector(vector, scopes), replica.id);
  for (const k in others) {
    const scope = keyScope(k);
    let part = byScope.get(scope);
    if (!part) byScope.set(scope, (part = {}));
    part[k] = others[k];
  }
  // '*' always (an empty vector too, as the one advance was); any other scope only with streams of its own.
  await Promise.all([...byScope].map(([scope, part]) => {
    const op = replica.makeOp({ type: 'advance', id: host, from: host, vector: part, late }, scope);
    return replica.submit({ op, flags: FLAG_GRANTED, via, late });
  }));
  return others;
}

/** What runBootstrap needs: the storage, the link and host, and where progress goes. */
export interface BootstrapRun {
  replica: Replica; link: SyncLink; host: string; url: string; scopes: string[];
  progress(received: number, total: number): void;
  /** The bootstrap's span: each snapshot page runs in a child of it. */
  traced?: { telemetry: SyncTelemetry; span: Span };
}

/** Fetch one snapshot page and join it; the first page also adopts the host's vector. */
async function takePage(o: BootstrapRun, token: string | undefined, offset: number, seen: Set<string>): Promise<{ page: SnapshotPage; entries: number; fresh: number; adopted?: Vector }> {
  const via = { url: o.url, node: o.host };
  const read = readSnapshotPage(await o.link.call('snapshot', { token, offset, scopes: o.scopes, stream: !!o.link.stream }), offset);
  if (!read.ok) throw new SyncomError(read.code, read.reason);
  const { page } = read;
  const entries = page.stream ? await readStream(o.link, page.stream, maxPageBytes(o.replica)) : (page.entries ?? []);
  // readSnapshotPage and readNdjson checked every entry's shape: checking them again cost a tenth of a join.
  checkPage(o.replica, entries, false);
  const joins = joinChecked(o.replica, entries as Entry[], { host: o.host, via, removedScopes: page.removedScopes });
  let adopted: Vector | undefined;
  if (token === undefined && page.vector) joins.push(adopt(o.replica, o.host, page.vector, via, o.scopes).then((v) => void (adopted = v)));
  await Promise.all(joins);
  let fresh = 0;
  for (const e of entries as Entry[]) if (!seen.has(e.id)) (seen.add(e.id), fresh++);
  return { page, entries: entries.length, fresh, adopted };
}

/** takePage inside a snapshot page span, when the bootstrap is traced. */
function tracedPage(o: BootstrapRun, token: string | undefined, offset: number, seen: Set<string>): ReturnType<typeof takePage> {
  const t = o.traced;
  if (!t) return takePage(o, token, offset, seen);
  return t.telemetry.snapshotPage({ role: 'dialer', peer: o.url, offset, parent: t.span }, async (span) => {
    const got = await takePage(o, token, offset, seen);
    span.setAttribute(ATTRS.entries, got.entries);
    return got;
  });
}

/** Pages in a row that bring no record not seen in this bootstrap, at most: past them the host is paging for ever. */
const MAX_EMPTY_PAGES = 64;

/**
 * Refuse a snapshot that would run on for ever: its offsets stay within the
 * total the first page named, and pages that bring no record not seen
 * before in this bootstrap stop it after MAX_EMPTY_PAGES in a row. An honest
 * host's page holds records it has not sent (each id once, in order); one
 * without any is a streamed page whose one record left the scopes or was
 * sealed before the pull. A host answering empty pages, or the same record
 * on every page, one offset apart had kept the dialer bootstrapping (its
 * feed closed) for as long as it liked.
 *
 * @throws SyncomError PAGE_FAILED
 */
function endless(page: SnapshotPage, fresh: number, total: number, empty: { pages: number }): void {
  if (page.next === null || page.next === undefined) return;
  empty.pages = fresh > 0 ? 0 : empty.pages + 1;
  const why = page.total !== total ? 'a total unlike the first page\'s' : page.next > total ? 'a next past the total'
    : empty.pages > MAX_EMPTY_PAGES ? `${empty.pages} pages in a row with no record not sent before` : undefined;
  if (why) throw new SyncomError('PAGE_FAILED', `snapshot page: ${why}`);
}

/**
 * Bootstrap from a host (Bootstrap): page through its snapshot, join each
 * page as one batch, adopt its vector as of the first page, and return the
 * event id to re-subscribe from (BOOT-6) with the count of records joined
 * and the streams adopted.
 */
export async function runBootstrap(o: BootstrapRun): Promise<{ eventId: string; records: number; vector: Vector }> {
  let token: string | undefined;
  let offset = 0;
  let eventId = '';
  let vector: Vector = {};
  let records = 0;
  let total: number | undefined;
  const seen = new Set<string>();
  const empty = { pages: 0 };
  for (;;) {
    const { page, entries, fresh, adopted } = await tracedPage(o, token, offset, seen);
    if (token === undefined) [eventId, vector] = [typeof page.eventId === 'string' ? page.eventId : '', adopted ?? {}];
    total ??= page.total;
    endless(page, fresh, total, empty);
    records += entries;
    o.progress(records, page.total);
    token = page.token;
    if (page.next === null || page.next === undefined) {
      o.traced?.span.setAttribute(ATTRS.entries, records);
      return { eventId, records, vector };
    }
    offset = page.next;
  }
}

import { SyncomError } from '../../errors';
import { type Entry, entryText } from '../../crdt';
import { removedScopeBytes, removedScopesOf } from './reconcile-outside';
import { platform } from '../../platform';
import type { Replica } from '../../storage/replica';
import { frameEnds, type SendWindow } from '../protocol/frames';
import { jsonBytesBound } from './json-bound';
import { type IdList, servedIds } from './sorted-ids';
import { inServed, servedVector } from '../protocol/scopes';
import { heldBack } from './snapshot-held';
import type { SnapshotPage } from '../protocol/snapshot-page';

export type { SnapshotPage };

/**
 * Who a paging or a stream belongs to: the connection, and the session on it
 * that started it; `identity`, the peer as the host established it (its
 * token: limitKey), which the caps hold to its share of the unit's.
 */
export interface PagingOwner {
  context: object;
  session: object;
  identity?: unknown;
}

/** How many pagings (and streams) a pager keeps open. */
export interface PagingCaps {
  /** Over every connection (default 64). */
  max?: number;
  /** On one connection (default 4). */
  perConnection?: number;
  /** Of one identity, all its connections together (default a quarter of `max`, at least perConnection). */
  perIdentity?: number;
}

interface Paging extends PagingOwner {
  /** The sorted ids served: a version of the ids kept in order, taken at the first page. */
  ids: IdList;
  scopes: string[];
  at: number;
  /** The furthest offset the paging served up to: a page starts at or before it. */
  reached: number;
}

/**
 * A streamed page not yet pulled: the ids it serves and each one's UTF-8
 * bytes as measured at the page (where chunks are cut), never their text. A
 * kept stream used to hold a fresh copy of its records' text until read or
 * 10 minutes passed, counted nowhere: 64 of them, unread, held 640 MiB of one
 * 10 MiB record (docs/security.md). Its records are read live, and their text
 * built, at the pull, chunk by chunk once the send window has room for it.
 */
interface KeptStream extends PagingOwner {
  ids: string[];
  sizes: number[];
  scopes: string[];
  at: number;
}

/** What the caps weigh: whose it is, and when it was last used. */
type Held = PagingOwner & { at: number };

/** UTF-8 bytes of an entry's JSON line (without its newline). */
const textBytes = (e: Entry) => platform().byteLength(entryText(e));

const TTL = 10 * 60_000;

/** How long a paging (or a stream) must have gone unused before a new one may take its place at the unit's cap. */
const IDLE = 30_000;

/** Open snapshot pagings a unit keeps by default, over all connections and on one. */
export const DEFAULT_MAX_PAGINGS = 64;
export const DEFAULT_MAX_PAGINGS_PER_CONNECTION = 4;

/**
 * Ids of a paging's list one page may step over unserved (moved out of its
 * scopes, or sealed, since its first page), beyond the page's `size`: at
 * least this many, and four a record of the page. A page may start again at
 * any offset its paging reached, so a page that walked a long unserved run
 * walked it again at every ask: a peer that moved 15,000 records out of a
 * paging's scope made each ask of offset 0, 60 bytes, look at 15,000 ids
 * for ten records, as often as it liked. Past it the page ends short (even
 * empty), its `next` past what it looked at: a dialer reads on, and one that
 * meets 64 such pages in a row bootstraps again, on a list without them.
 */
export const MAX_PAGE_SKIP = 1024;

/** How many ids of its paging's list a page of `size` records looks at, at most. */
export const pageWalk = (size: number): number => size + Math.max(MAX_PAGE_SKIP, 4 * size);

/** The most a stream chunk carries, unless one record alone is larger (a record is never split). */
export const STREAM_CHUNK = 64 * 1024;

const past = () => new SyncomError('SNAPSHOT_OFFSET', 'a snapshot page starts at 0 or at an offset its paging reached', { status: 400 });

const foreign = (what: string) => new SyncomError('SNAPSHOT_NOT_FOUND', `no ${what} of this session`, { status: 404 });

/**
 * The host's snapshot pages (PROTO-7, BOOT-2): every entry of the served
 * scopes in id order, tombstones and purge markers included, with its merge
 * state. The id list is fixed at the first page; entries are read live, so
 * what lands while paging is in them or replays on the feed as a no-op.
 * A page holds at most `size` records and `maxBytes` of their JSON, cut
 * between records; a record above maxBytes goes alone (bounded frames). It
 * looks at no more than pageWalk(size) ids of the list: past a long run of
 * ids no longer served it ends short, `next` past the run's part it saw.
 *
 * A paging (its token) and a stream belong to the connection and session
 * that started it: anyone else is answered 404 SNAPSHOT_NOT_FOUND. They end
 * on their last page, on release(context) (the connection went, its session
 * ended), after 10 minutes unused, or when a cap is met (its next page: 410
 * SNAPSHOT_EXPIRED): a connection's least recently used past its own cap;
 * past the unit's cap the least recently used if idle 30 s, else the new
 * paging is refused 503 SNAPSHOT_BUSY. Streams (capped apart from pagings)
 * follow the same rule, and a page whose stream is refused leaves its paging
 * where it was. A stream holds its page's ids, not their text. A
 * paging holds a version of the served ids kept in order as commits add them
 * (ServedIds: a new version copies the chunk lists of its scopes, 8 bytes a
 * chunk of 512 to 1,024 ids). A page starts at 0 or at an offset the
 * paging's pages reached (400 SNAPSHOT_OFFSET past it), so that a page of
 * some scopes, read through a union of per-scope lists, never walks further
 * than the pages served.
 */
export class SnapshotPager {
  private readonly pagings = new Map<string, Paging>();
  private readonly streams = new Map<string, KeptStream>();
  private readonly max: number;
  private readonly perConnection: number;
  private readonly perIdentity: number;

  constructor(private readonly replica: Replica, private readonly now: () => number, caps: PagingCaps = {}) {
    this.max = caps.max ?? DEFAULT_MAX_PAGINGS;
    this.perConnection = caps.perConnection ?? DEFAULT_MAX_PAGINGS_PER_CONNECTION;
    this.perIdentity = caps.perIdentity ?? Math.max(this.perConnection, Math.floor(this.max / 4));
  }

  /** Pagings and streams open now (what the caps bound). */
  get open(): { pagings: number; streams: number } {
    return { pagings: this.pagings.size, streams: this.streams.size };
  }

  /**
   * One page for `owner`.
   * @throws SyncomError 410 SNAPSHOT_EXPIRED for a token that ended; 404 SNAPSHOT_NOT_FOUND for another connection's or session's.
   */
  page(args: { token?: unknown; offset?: unknown; stream?: unknown }, scopes: string[], limits: { size: number; maxBytes: number }, owner: PagingOwner): SnapshotPage {
    this.expire();
    const { size, maxBytes } = limits;
    const first = typeof args.token !== 'string';
    // Not below 0: take() walks from the offset up, and -2^53 would walk (and block the host) for ever.
    const offset = Number.isSafeInteger(args.offset) && (args.offset as number) > 0 ? (args.offset as number) : 0;
    if (first && offset > 0) throw past();
    const token = first ? platform().base64url(platform().randomBytes(9)) : (args.token as string);
    const paging = first ? this.start(token, scopes, owner) : this.resume(token, owner, offset);
    const { entries, sizes, bytes, end } = this.take(paging, offset, size, maxBytes);
    // Only a record above maxBytes makes a page over it (HOST-6): streamed where the link can stream.
    // Kept before the paging moves on, so that a stream refused 503 leaves the paging to ask again.
    const stream = args.stream === true && bytes > maxBytes
      ? this.keep({ ids: entries.map((e) => e.id), sizes, scopes: paging.scopes, at: this.now(), ...owner }, first ? token : undefined)
      : undefined;
    paging.reached = Math.max(paging.reached, end);
    const next = end < paging.ids.length ? end : null;
    if (next === null) this.pagings.delete(token);
    const page: SnapshotPage = { token, next, total: paging.ids.length, count: entries.length };
    if (first) {
      // The committed point, not the log's head: an append not yet applied to the records is not in them.
      const point = heldBack(this.replica, servedVector(this.replica.committedVector, scopes), this.replica.committedHead);
      page.vector = point.vector;
      page.eventId = point.eventId;
    }
    if (stream !== undefined) page.stream = stream;
    else page.entries = entries;
    const removed = removedScopesOf(this.replica, entries);
    if (removed) page.removedScopes = removed;
    return page;
  }

  /** Drops the pagings and streams of a connection (it went), or only those of one session on it. */
  release(context: object, session?: object): void {
    for (const map of [this.pagings, this.streams] as Map<string, PagingOwner>[]) {
      for (const [k, p] of map) if (p.context === context && (!session || p.session === session)) map.delete(k);
    }
  }

  /** Drops every paging and stream (the unit ended). */
  clear(): void {
    this.pagings.clear();
    this.streams.clear();
  }

  /**
   * The NDJSON of a streamed page in chunks of whole lines, at most `chunk`
   * bytes unless one line alone is larger (or a record grew since the page);
   * each stream is read once. A chunk's records are read live, checked live
   * as a page's are, and their text is built only once the peer's send
   * window gave it a slot: its bytes are charged to the connection's and the
   * unit's in-flight budgets from then until the consumer asks for the next
   * chunk (its ack) or stops.
   */
  async *stream(id: string, o: { window?: SendWindow; owner?: PagingOwner; chunk?: number } = {}): AsyncIterable<Uint8Array> {
    const { window, owner, chunk = STREAM_CHUNK } = o;
    const s = this.streams.get(id);
    if (!s || (owner && (s.context !== owner.context || s.session !== owner.session))) {
      throw new SyncomError('STREAM_NOT_FOUND', `no snapshot stream ${id} of this session`, { status: 404 });
    }
    this.streams.delete(id);
    // frameEnds counts a separator per line and two brackets: sized without their newlines, lines fill `chunk` exactly.
    const ends = frameEnds(s.sizes, Infinity, chunk + 1);
    for (let k = 0; k < ends.length; k++) {
      const slot = window ? await window.acquire() : undefined;
      if (window && !slot) return;
      try {
        const bytes = this.chunkOf(s, k === 0 ? 0 : ends[k - 1], ends[k]);
        if (bytes.length === 0) continue;
        slot?.charge(bytes.length);
        yield bytes;
      } finally {
        slot?.release();
      }
    }
  }

  private start(token: string, scopes: string[], owner: PagingOwner): Paging {
    this.admit(this.pagings, owner, 'snapshot pagings');
    const p: Paging = { ids: servedIds(this.replica).of(scopes), scopes, at: this.now(), reached: 0, ...owner };
    this.pagings.set(token, p);
    return p;
  }

  private resume(token: string, owner: PagingOwner, offset: number): Paging {
    const p = this.pagings.get(token);
    if (!p) throw new SyncomError('SNAPSHOT_EXPIRED', 'the snapshot paging expired; start again', { status: 410 });
    if (p.context !== owner.context || p.session !== owner.session) throw foreign('snapshot paging');
    if (offset > p.reached) throw past();
    // Most recently used last: the caps drop the paging unused the longest.
    this.pagings.delete(token);
    this.pagings.set(token, p);
    p.at = this.now();
    return p;
  }

  /**
   * Room for a new paging or stream (a Map iterates least recently used
   * first): the connection's least recently used go past its cap (it
   * abandoned them); past its identity's cap, and past the unit's, the least
   * recently used (the identity's, the unit's) goes only if idle for IDLE
   * ms — evicting ones in use would let a crowd of honest bootstraps evict
   * each other for ever, and let 64 fresh streams of one peer's evict an
   * honest dialer's before its first pull — else the new one is refused.
   * The identity's cap keeps one token, over its 32 sockets, from holding
   * every paging of the unit open and every other peer's bootstrap refused.
   * @throws SyncomError 503 SNAPSHOT_BUSY
   */
  private admit<T extends Held>(map: Map<string, T>, owner: PagingOwner, what: string): void {
    const mine = [...map].filter(([, p]) => p.context === owner.context);
    for (let i = 0; i <= mine.length - this.perConnection; i++) map.delete(mine[i][0]);
    if (owner.identity !== undefined) {
      const theirs = [...map].filter(([, p]) => p.identity === owner.identity);
      if (theirs.length >= this.perIdentity) this.evictIdle(map, theirs[0], `${this.perIdentity} ${what} of this peer are open here`);
    }
    if (map.size >= this.max) this.evictIdle(map, map.entries().next().value as [string, T], `${this.max} ${what} are open here`);
  }

  /** Drop `oldest` if idle IDLE ms, else refuse the new one. @throws SyncomError 503 SNAPSHOT_BUSY */
  private evictIdle<T extends Held>(map: Map<string, T>, [key, p]: [string, T], why: string): void {
    if (this.now() - p.at < IDLE) throw new SyncomError('SNAPSHOT_BUSY', `${why}: try again shortly`, { status: 503 });
    map.delete(key);
  }

  /** The entry of `id` if a page of `scopes` serves it now: read live, so checked live (a record moved out of the served scopes, or sealed, is not served). */
  private served(id: string, scopes: string[]): Entry | undefined {
    const e = this.replica.records.get(id);
    if (!e || this.replica.isSealed(id)) return undefined;
    return scopes.includes('*') || inServed(this.replica.scopeOf(id), scopes) ? e : undefined;
  }

  /**
   * The entries of a paging's page from `offset`: up to `size` records within
   * `maxBytes` (one larger record alone), looking at no more than
   * pageWalk(size) ids, and where the next page starts.
   * Sizes are upper bounds (jsonBytesBound) while their sum stays within
   * maxBytes, so the cut is the one exact sizes give; past it every entry
   * taken is measured exactly, as its JSON (what a streamed page sends; the
   * sizes, never the text, are kept). Every entry is read and checked live.
   */
  private take(paging: Paging, offset: number, size: number, maxBytes: number): { entries: Entry[]; sizes: number[]; bytes: number; end: number } {
    const { ids, scopes } = paging;
    const entries: Entry[] = [];
    let sizes: number[] | undefined;
    let bytes = 1;
    let end = offset;
    const stop = Math.min(ids.length, offset + pageWalk(size));
    for (; end < stop && entries.length < size; end++) {
      const e = this.served(ids.at(end) as string, scopes);
      if (!e) continue;
      // A tombstone's scope rides beside it (removedScopes): its bytes count against the page's as the entry's do.
      const named = removedScopeBytes(this.replica, e);
      if (!sizes) {
        const bound = jsonBytesBound(e) + 1 + named;
        if (bytes + bound <= maxBytes) { bytes += bound; entries.push(e); continue; }
        sizes = entries.map(textBytes);
        bytes = sizes.reduce((n, t, i) => n + t + 1 + removedScopeBytes(this.replica, entries[i]), 1);
      }
      const n = textBytes(e);
      if (entries.length > 0 && bytes + n + 1 + named > maxBytes) break;
      bytes += n + 1 + named;
      entries.push(e);
      sizes.push(n);
    }
    return { entries, sizes: sizes ?? [], bytes, end };
  }

  /**
   * Keeps a streamed page under the caps (admit). A first page whose stream
   * is refused leaves no paging behind either.
   * @throws SyncomError 503 SNAPSHOT_BUSY
   */
  private keep(s: KeptStream, firstToken?: string): string {
    try {
      this.admit(this.streams, s, 'snapshot streams');
    } catch (e) {
      if (firstToken !== undefined) this.pagings.delete(firstToken);
      throw e;
    }
    const id = platform().base64url(platform().randomBytes(9));
    this.streams.set(id, s);
    return id;
  }

  /** Lines [from, to) of a kept stream as one chunk: its records read and checked now, their text built now; empty if none is served any more. */
  private chunkOf(s: KeptStream, from: number, to: number): Uint8Array {
    const texts: string[] = [];
    for (let i = from; i < to; i++) {
      const e = this.served(s.ids[i], s.scopes);
      if (e) texts.push(entryText(e));
    }
    return texts.length === 0 ? new Uint8Array(0) : platform().utf8(`${texts.join('\n')}\n`);
  }

  private expire(): void {
    const old = this.now() - TTL;
    for (const [k, p] of this.pagings) if (p.at < old) this.pagings.delete(k);
    for (const [k, s] of this.streams) if (s.at < old) this.streams.delete(k);
  }
}

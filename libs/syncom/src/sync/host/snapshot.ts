import { SyncomError } from '../../errors';
import { type Entry, entryText } from '../../crdt';
import { platform } from '../../platform';
import { concatBytes } from '../../platform/text';
import type { Replica } from '../../storage/replica';
import { frameEnds, type SendWindow } from '../protocol/frames';
import { jsonBytesBound } from './json-bound';
import { type IdList, servedIds } from './sorted-ids';
import { inServed, servedVector } from '../protocol/scopes';
import type { SnapshotPage } from '../protocol/snapshot-page';

export type { SnapshotPage };

/** Who a paging or a stream belongs to: the connection, and the session on it that started it. */
export interface PagingOwner {
  context: object;
  session: object;
}

/** How many pagings (and streams) a pager keeps open. */
export interface PagingCaps {
  /** Over every connection (default 64). */
  max?: number;
  /** On one connection (default 4). */
  perConnection?: number;
}

interface Paging extends PagingOwner {
  /** The sorted ids served: a version of the ids kept in order, taken at the first page. */
  ids: IdList;
  scopes: string[];
  at: number;
  /** The furthest offset the paging served up to: a page starts at or before it. */
  reached: number;
}

interface KeptStream extends PagingOwner {
  lines: string[];
  at: number;
}

const TTL = 10 * 60_000;

/** How long a paging must have gone unused before a new one may take its place at the unit's cap. */
const IDLE = 30_000;

/** Open snapshot pagings a unit keeps by default, over all connections and on one. */
export const DEFAULT_MAX_PAGINGS = 64;
export const DEFAULT_MAX_PAGINGS_PER_CONNECTION = 4;

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
 * between records; a record above maxBytes goes alone (bounded frames).
 *
 * A paging (its token) and a stream belong to the connection and session
 * that started it: anyone else is answered 404 SNAPSHOT_NOT_FOUND. They end
 * on their last page, on release(context) (the connection went, its session
 * ended), after 10 minutes unused, or when a cap is met (its next page: 410
 * SNAPSHOT_EXPIRED): a connection's least recently used past its own cap;
 * past the unit's cap the least recently used if idle 30 s, else the new
 * paging is refused 503 SNAPSHOT_BUSY. Streams past either cap: the oldest. A
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

  constructor(private readonly replica: Replica, private readonly now: () => number, caps: PagingCaps = {}) {
    this.max = caps.max ?? DEFAULT_MAX_PAGINGS;
    this.perConnection = caps.perConnection ?? DEFAULT_MAX_PAGINGS_PER_CONNECTION;
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
    const { entries, json, bytes, end } = this.take(paging, offset, size, maxBytes);
    paging.reached = Math.max(paging.reached, end);
    const next = end < paging.ids.length ? end : null;
    if (next === null) this.pagings.delete(token);
    const page: SnapshotPage = { token, next, total: paging.ids.length, count: entries.length };
    if (first) {
      // The committed point, not the log's head: an append not yet applied to the records is not in them.
      page.vector = servedVector(this.replica.committedVector, scopes);
      page.eventId = this.replica.eventId(this.replica.committedHead);
    }
    // Only a record above maxBytes makes a page over it (HOST-6): streamed where the link can stream.
    if (args.stream === true && bytes > maxBytes) page.stream = this.keep(json, owner);
    else page.entries = entries;
    return page;
  }

  /** Drops the pagings and streams of a connection (it went), or only those of one session on it. */
  release(context: object, session?: object): void {
    for (const map of [this.pagings, this.streams] as Map<string, PagingOwner>[]) {
      for (const [k, p] of map) if (p.context === context && (!session || p.session === session)) map.delete(k);
    }
  }

  /**
   * The NDJSON of a streamed page in chunks of whole lines, at most `chunk`
   * bytes unless one line alone is larger; each stream is read once. Each
   * chunk holds a slot of the peer's send window from when it is produced
   * until the consumer asks for the next one (its ack) or stops.
   */
  async *stream(id: string, o: { window?: SendWindow; owner?: PagingOwner; chunk?: number } = {}): AsyncIterable<Uint8Array> {
    const { window, owner, chunk = STREAM_CHUNK } = o;
    const s = this.streams.get(id);
    if (!s || (owner && (s.context !== owner.context || s.session !== owner.session))) {
      throw new SyncomError('STREAM_NOT_FOUND', `no snapshot stream ${id} of this session`, { status: 404 });
    }
    this.streams.delete(id);
    const lines = s.lines.map((l) => platform().utf8(`${l}\n`));
    // frameEnds counts a separator per line and two brackets: sized without their newlines, lines fill `chunk` exactly.
    const ends = frameEnds(lines.map((l) => l.length - 1), Infinity, chunk + 1);
    for (let k = 0; k < ends.length; k++) {
      const slot = window ? await window.acquire() : undefined;
      if (window && !slot) return;
      try {
        const bytes = concatBytes(lines.slice(k === 0 ? 0 : ends[k - 1], ends[k]));
        slot?.charge(bytes.length);
        yield bytes;
      } finally {
        slot?.release();
      }
    }
  }

  private start(token: string, scopes: string[], owner: PagingOwner): Paging {
    this.admit(owner.context);
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
   * Room for a new paging: the connection's least recently used go past its
   * cap (it abandoned them); past the unit's cap the least recently used goes
   * only if idle for IDLE ms — evicting pagings in use would let a crowd of
   * honest bootstraps evict each other for ever — else the new one is refused.
   * @throws SyncomError 503 SNAPSHOT_BUSY
   */
  private admit(context: object): void {
    const mine = [...this.pagings].filter(([, p]) => p.context === context);
    for (let i = 0; i <= mine.length - this.perConnection; i++) this.pagings.delete(mine[i][0]);
    if (this.pagings.size < this.max) return;
    const [oldest, p] = this.pagings.entries().next().value as [string, Paging];
    if (this.now() - p.at < IDLE) {
      throw new SyncomError('SNAPSHOT_BUSY', `${this.max} snapshot pagings are open here: try again shortly`, { status: 503 });
    }
    this.pagings.delete(oldest);
  }

  /** Over a cap, the oldest of the connection's, then of all, go (a Map iterates oldest first). */
  private cap(map: Map<string, PagingOwner>, context: object): void {
    const mine = [...map].filter(([, p]) => p.context === context);
    for (let i = 0; i < mine.length - this.perConnection; i++) map.delete(mine[i][0]);
    for (const k of map.keys()) {
      if (map.size <= this.max) break;
      map.delete(k);
    }
  }

  /**
   * The entries of a paging's page from `offset`: up to `size` records within
   * `maxBytes` (one larger record alone), and where the next page starts.
   * Sizes are upper bounds (jsonBytesBound) while their sum stays within
   * maxBytes, so the cut is the one exact sizes give; past it every entry
   * taken is measured exactly, as its JSON (what a streamed page sends).
   */
  private take(paging: Paging, offset: number, size: number, maxBytes: number): { entries: Entry[]; json: string[]; bytes: number; end: number } {
    const c = this.replica.records;
    const { ids, scopes } = paging;
    const entries: Entry[] = [];
    let json: string[] | undefined;
    let bytes = 1;
    let end = offset;
    // Serving every scope, no record's scope is looked up.
    const all = scopes.includes('*');
    for (; end < ids.length && entries.length < size; end++) {
      const id = ids.at(end) as string;
      const e = c.get(id);
      // Read live, so checked live: a record moved out of the served scopes, or sealed, since the first page is not served.
      if (!e || !(all || inServed(this.replica.scopeOf(id), scopes)) || this.replica.isSealed(id)) continue;
      if (!json) {
        const bound = jsonBytesBound(e) + 1;
        if (bytes + bound <= maxBytes) { bytes += bound; entries.push(e); continue; }
        json = entries.map(entryText);
        bytes = json.reduce((n, t) => n + platform().byteLength(t) + 1, 1);
      }
      const text = entryText(e);
      const n = platform().byteLength(text) + 1;
      if (entries.length > 0 && bytes + n > maxBytes) break;
      bytes += n;
      entries.push(e);
      json.push(text);
    }
    return { entries, json: json ?? [], bytes, end };
  }

  private keep(lines: string[], owner: PagingOwner): string {
    const id = platform().base64url(platform().randomBytes(9));
    this.streams.set(id, { lines, at: this.now(), ...owner });
    this.cap(this.streams, owner.context);
    return id;
  }

  private expire(): void {
    const old = this.now() - TTL;
    for (const [k, p] of this.pagings) if (p.at < old) this.pagings.delete(k);
    for (const [k, s] of this.streams) if (s.at < old) this.streams.delete(k);
  }
}

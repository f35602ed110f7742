import { randomBytes } from 'node:crypto';
import { SyncomError } from '../errors';
import type { Entry } from '../crdt';
import type { Vector } from '../op/types';
import type { Storage } from '../storage/storage';
import { frameEnds, type SendWindow } from './frames';
import { inServed, servedVector } from './scopes';

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
}

interface Paging {
  ids: string[];
  at: number;
}

const TTL = 10 * 60_000;

/** The most a stream chunk carries, unless one record alone is larger (a record is never split). */
export const STREAM_CHUNK = 64 * 1024;

/**
 * The host's snapshot pages (PROTO-7, BOOT-2): every entry of the served
 * scopes in id order, tombstones and purge markers included, with its merge
 * state. The id list is fixed at the first page; entries are read live, so
 * what lands while paging is in them or replays on the feed as a no-op.
 * A page holds at most `size` records and `maxBytes` of their JSON, cut
 * between records; a record above maxBytes goes alone (issue 6.3).
 */
export class SnapshotPager {
  private readonly pagings = new Map<string, Paging>();
  private readonly streams = new Map<string, { lines: string[]; at: number }>();

  constructor(private readonly storage: Storage, private readonly now: () => number) {}

  page(args: { token?: unknown; offset?: unknown; stream?: unknown }, scopes: string[], size: number, maxBytes: number): SnapshotPage {
    this.expire();
    const first = typeof args.token !== 'string';
    const token = first ? randomBytes(9).toString('base64url') : (args.token as string);
    const paging = first ? this.start(token, scopes) : this.pagings.get(token);
    if (!paging) throw new SyncomError('SNAPSHOT_EXPIRED', 'the snapshot paging expired; start again', { status: 410 });
    // Not below 0: take() walks from the offset up, and -2^53 would walk (and block the host) for ever.
    const offset = Number.isSafeInteger(args.offset) && (args.offset as number) > 0 ? (args.offset as number) : 0;
    const { entries, json, bytes, end } = this.take(paging.ids, offset, size, maxBytes);
    const next = end < paging.ids.length ? end : null;
    if (next === null) this.pagings.delete(token);
    const page: SnapshotPage = { token, next, total: paging.ids.length, count: entries.length };
    if (first) {
      // The committed point, not the log's head: an append not yet applied to the records is not in them.
      page.vector = servedVector(this.storage.parts.committer.cvec, scopes);
      page.eventId = this.storage.parts.log.eventId(this.storage.parts.committer.chead);
    }
    // Only a record above maxBytes makes a page over it (HOST-6): streamed where the link can stream.
    if (args.stream === true && bytes > maxBytes) page.stream = this.keep(json);
    else page.entries = entries;
    return page;
  }

  /**
   * The NDJSON of a streamed page in chunks of whole lines, at most `chunk`
   * bytes unless one line alone is larger; each stream is read once. Each
   * chunk holds a slot of the peer's send window from when it is produced
   * until the consumer asks for the next one (its ack) or stops.
   */
  async *stream(id: string, window?: SendWindow, chunk = STREAM_CHUNK): AsyncIterable<Uint8Array> {
    const s = this.streams.get(id);
    if (!s) throw new SyncomError('STREAM_NOT_FOUND', `no snapshot stream ${id}`, { status: 404 });
    this.streams.delete(id);
    const lines = s.lines.map((l) => Buffer.from(`${l}\n`));
    // frameEnds counts a separator per line and two brackets: sized without their newlines, lines fill `chunk` exactly.
    const ends = frameEnds(lines.map((l) => l.length - 1), Infinity, chunk + 1);
    for (let k = 0; k < ends.length; k++) {
      const slot = window ? await window.acquire() : undefined;
      if (window && !slot) return;
      try {
        yield Buffer.concat(lines.slice(k === 0 ? 0 : ends[k - 1], ends[k]));
      } finally {
        slot?.release();
      }
    }
  }

  private start(token: string, scopes: string[]): Paging {
    const ids = [...this.storage.parts.committer.committed.keys()]
      .filter((id) => inServed(this.storage.scopeOf(id), scopes) && !this.storage.isSealed(id))
      .sort();
    const p = { ids, at: this.now() };
    this.pagings.set(token, p);
    return p;
  }

  /** The entries of a page from `offset`: up to `size` records within `maxBytes` (one larger record alone), and where the next page starts. */
  private take(ids: string[], offset: number, size: number, maxBytes: number): { entries: Entry[]; json: string[]; bytes: number; end: number } {
    const c = this.storage.parts.committer.committed;
    const entries: Entry[] = [];
    const json: string[] = [];
    let bytes = 1;
    let end = offset;
    for (; end < ids.length && entries.length < size; end++) {
      const e = c.get(ids[end]);
      if (!e) continue;
      const text = JSON.stringify(e);
      const n = Buffer.byteLength(text) + 1;
      if (entries.length > 0 && bytes + n > maxBytes) break;
      bytes += n;
      entries.push(e);
      json.push(text);
    }
    return { entries, json, bytes, end };
  }

  private keep(lines: string[]): string {
    const id = randomBytes(9).toString('base64url');
    this.streams.set(id, { lines, at: this.now() });
    return id;
  }

  private expire(): void {
    const old = this.now() - TTL;
    for (const [k, p] of this.pagings) if (p.at < old) this.pagings.delete(k);
    for (const [k, s] of this.streams) if (s.at < old) this.streams.delete(k);
  }
}

import { randomBytes } from 'node:crypto';
import { SyncomError } from '../errors';
import type { Entry } from '../crdt';
import type { Vector } from '../op/types';
import type { Storage } from '../storage/storage';
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

/**
 * The host's snapshot pages (PROTO-7, BOOT-2): every entry of the served
 * scopes in id order, tombstones and purge markers included, with its merge
 * state. The id list is fixed at the first page; entries are read live, so
 * what lands while paging is in them or replays on the feed as a no-op.
 */
export class SnapshotPager {
  private readonly pagings = new Map<string, Paging>();
  private readonly streams = new Map<string, { data: Uint8Array; at: number }>();

  constructor(private readonly storage: Storage, private readonly now: () => number) {}

  page(args: { token?: unknown; offset?: unknown; stream?: unknown }, scopes: string[], size: number, maxBytes: number): SnapshotPage {
    this.expire();
    const first = typeof args.token !== 'string';
    const token = first ? randomBytes(9).toString('base64url') : (args.token as string);
    const paging = first ? this.start(token, scopes) : this.pagings.get(token);
    if (!paging) throw new SyncomError('SNAPSHOT_EXPIRED', 'the snapshot paging expired; start again', { status: 410 });
    const offset = Number.isSafeInteger(args.offset) ? (args.offset as number) : 0;
    const entries = this.entries(paging.ids.slice(offset, offset + size));
    const next = offset + size < paging.ids.length ? offset + size : null;
    if (next === null) this.pagings.delete(token);
    const page: SnapshotPage = { token, next, total: paging.ids.length, count: entries.length };
    if (first) {
      // The committed point, not the log's head: an append not yet applied to the records is not in them.
      page.vector = servedVector(this.storage.parts.committer.cvec, scopes);
      page.eventId = this.storage.parts.log.eventId(this.storage.parts.committer.chead);
    }
    const json = entries.map((e) => JSON.stringify(e));
    const bytes = json.reduce((n, s) => n + s.length + 1, 0);
    if (args.stream === true && bytes > maxBytes) page.stream = this.keep(Buffer.from(json.join('\n') + '\n'));
    else page.entries = entries;
    return page;
  }

  /** The NDJSON bytes of a streamed page, in chunks; each stream is read once. */
  async *stream(id: string, chunk = 64 * 1024): AsyncIterable<Uint8Array> {
    const s = this.streams.get(id);
    if (!s) throw new SyncomError('STREAM_NOT_FOUND', `no snapshot stream ${id}`, { status: 404 });
    this.streams.delete(id);
    for (let i = 0; i < s.data.length; i += chunk) yield s.data.subarray(i, i + chunk);
  }

  private start(token: string, scopes: string[]): Paging {
    const ids = [...this.storage.parts.committer.committed.keys()]
      .filter((id) => inServed(this.storage.scopeOf(id), scopes) && !this.storage.isSealed(id))
      .sort();
    const p = { ids, at: this.now() };
    this.pagings.set(token, p);
    return p;
  }

  private entries(ids: string[]): Entry[] {
    const c = this.storage.parts.committer.committed;
    return ids.map((id) => c.get(id)).filter((e): e is Entry => !!e);
  }

  private keep(data: Uint8Array): string {
    const id = randomBytes(9).toString('base64url');
    this.streams.set(id, { data, at: this.now() });
    return id;
  }

  private expire(): void {
    const old = this.now() - TTL;
    for (const [k, p] of this.pagings) if (p.at < old) this.pagings.delete(k);
    for (const [k, s] of this.streams) if (s.at < old) this.streams.delete(k);
  }
}

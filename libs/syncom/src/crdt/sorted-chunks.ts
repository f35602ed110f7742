import { kidFor, lowerBound } from './sorted-map';

/** Ids a chunk holds before it splits in two. */
const CHUNK = 512;

/** One version of SortedChunks: sorted chunks, never changed after it was taken, and where each starts. */
export class ChunkedIds {
  constructor(
    private readonly chunks: readonly (readonly string[])[],
    private readonly starts: readonly number[],
    readonly length: number,
  ) {}

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    const k = this.chunkAt((c) => this.starts[c] <= i);
    return this.chunks[k][i - this.starts[k]];
  }

  /** How many of the ids are below `id`. */
  rank(id: string): number {
    const k = this.chunkAt((c) => this.chunks[c][0] <= id);
    return this.starts[k] + lowerBound(this.chunks[k], id);
  }

  /** The last chunk for which `fits` holds (the first when none does); fits holds for a prefix of the chunks. */
  private chunkAt(fits: (chunk: number) => boolean): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * A set of ids kept in order in chunks of up to 2 x CHUNK, read through
 * versions (current(), immutable): a change copies one chunk (and the chunk
 * list, when a version holds it), not the list.
 */
export class SortedChunks {
  private chunks: string[][] = [];
  /** Each chunk's first id (chunks are never empty but a lone one). */
  private firsts: string[] = [];
  private size = 0;
  private version?: ChunkedIds;
  /** Chunks a version taken holds: changed only as copies. */
  private readonly held = new WeakSet<string[]>();

  constructor(sorted: readonly string[]) {
    for (let i = 0; i < sorted.length; i += CHUNK) this.chunks.push(sorted.slice(i, i + CHUNK));
    if (this.chunks.length === 0) this.chunks.push([]);
    this.firsts = this.chunks.map((c) => c[0] ?? '');
    this.size = sorted.length;
  }

  get length(): number {
    return this.size;
  }

  /** The ids as they are now, in order; later changes leave it as it is. */
  current(): ChunkedIds {
    if (this.version) return this.version;
    const starts = new Array<number>(this.chunks.length);
    let at = 0;
    this.chunks.forEach((c, k) => {
      starts[k] = at;
      at += c.length;
      this.held.add(c);
    });
    return (this.version = new ChunkedIds(this.chunks.slice(), starts, this.size));
  }

  /** Puts `id` in (want) or takes it out. */
  set(id: string, want: boolean): void {
    const k = kidFor(this.firsts, id);
    const chunk = this.chunks[k];
    const i = lowerBound(chunk, id);
    if ((chunk[i] === id) === want) return;
    const mine = this.held.has(chunk) ? chunk.slice() : chunk;
    if (want) mine.splice(i, 0, id);
    else mine.splice(i, 1);
    this.size += want ? 1 : -1;
    this.version = undefined;
    if (mine.length > 2 * CHUNK) {
      this.chunks.splice(k, 1, mine.slice(0, CHUNK), mine.slice(CHUNK));
      this.firsts.splice(k, 1, mine[0], mine[CHUNK]);
    } else if (mine.length === 0 && this.chunks.length > 1) {
      this.chunks.splice(k, 1);
      this.firsts.splice(k, 1);
    } else {
      this.chunks[k] = mine;
      this.firsts[k] = mine[0] ?? '';
    }
  }
}

/**
 * Ids in order, every one a predicate wants and, from the first call of
 * scope() on, each scope's apart: kept up to date by touch(id) as records
 * change (the snapshot pagings' ServedIds, storage.list()), so reading them
 * in order from any id costs the ids read, not a sort or a filter of every
 * record. Built from `ids` once.
 */
export class ScopedOrder {
  private readonly everyId: SortedChunks;
  /** Per scope: its ids, and the scope each id is listed under. */
  private perScope?: { lists: Map<string, SortedChunks>; listed: Map<string, string> };

  constructor(ids: Iterable<string>, private readonly want: (id: string) => boolean, private readonly scopeOf: (id: string) => string) {
    const list: string[] = [];
    for (const id of ids) if (want(id)) list.push(id);
    this.everyId = new SortedChunks(list.sort());
  }

  /** Every id wanted, as it is now (a version: later touches leave it as it is). */
  every(): ChunkedIds {
    return this.everyId.current();
  }

  /** The ids of one scope, as they are now; undefined for a scope that holds none. */
  scope(scope: string): ChunkedIds | undefined {
    const l = (this.perScope ??= this.byScope()).lists.get(scope);
    return l && l.length > 0 ? l.current() : undefined;
  }

  /** An id whose record changed: listed (under its scope) when wanted, out of the lists otherwise. */
  touch(id: string): void {
    const want = this.want(id);
    this.everyId.set(id, want);
    if (!this.perScope) return;
    const { lists, listed } = this.perScope;
    const was = listed.get(id);
    const scope = want ? this.scopeOf(id) : undefined;
    if (was === scope) return;
    if (was !== undefined) {
      const l = lists.get(was) as SortedChunks;
      l.set(id, false);
      if (l.length === 0) lists.delete(was);
      listed.delete(id);
    }
    if (scope !== undefined) {
      let l = lists.get(scope);
      if (!l) lists.set(scope, (l = new SortedChunks([])));
      l.set(id, true);
      listed.set(id, scope);
    }
  }

  /** Each scope's ids, split from the ids in order (so each comes out sorted). */
  private byScope(): NonNullable<ScopedOrder['perScope']> {
    const ids = new Map<string, string[]>();
    const listed = new Map<string, string>();
    const all = this.every();
    for (let i = 0; i < all.length; i++) {
      const id = all.at(i) as string;
      const scope = this.scopeOf(id);
      let l = ids.get(scope);
      if (!l) ids.set(scope, (l = []));
      l.push(id);
      listed.set(id, scope);
    }
    const lists = new Map<string, SortedChunks>();
    for (const [scope, l] of ids) lists.set(scope, new SortedChunks(l));
    return { lists, listed };
  }
}

import { lowerBound } from '../../crdt/sorted-map';

/** Ids a chunk holds before it splits in two. */
const CHUNK = 512;

/** How often a union of lists notes the id it stands at, to come back to any position it walked past. */
const MARK = 64;

/** A list of ids in order, read by position: an array, or a version of ServedIds. */
export interface IdList {
  readonly length: number;
  at(i: number): string | undefined;
}

const EMPTY: IdList = { length: 0, at: () => undefined };

/** One version of SortedChunks: sorted chunks, never changed after it was taken, and where each starts. */
class ChunkedIds implements IdList {
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
class SortedChunks {
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
    // The last chunk whose first id is not above `id` (the first chunk for an id below every one).
    let k = lowerBound(this.firsts, id);
    if (k === this.firsts.length || this.firsts[k] !== id) k = Math.max(0, k - 1);
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
 * Disjoint sorted lists read as one sorted list by position. Reading in
 * order costs O(log k) an id (a heap of the lists' next ids); the id at
 * every MARK-th position walked is noted, so going back to a position
 * walked past costs k rank lookups and at most MARK steps. A position past
 * every one walked is walked to: SnapshotPager never asks one further than
 * the pages it served.
 */
class UnionIds implements IdList {
  readonly length: number;
  /** Each list's next position. */
  private readonly heads: number[];
  /** Lists with ids left, as a min-heap by their next id (keys). */
  private heap: number[] = [];
  private readonly keys: string[];
  /** The position the heads stand at. */
  private next = 0;
  private readonly marks: string[] = [];

  constructor(private readonly lists: readonly ChunkedIds[]) {
    this.length = lists.reduce((n, l) => n + l.length, 0);
    this.heads = lists.map(() => 0);
    this.keys = lists.map(() => '');
    this.reheap();
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    if (i !== this.next) this.seek(i);
    return this.step();
  }

  private seek(i: number): void {
    const m = Math.min(Math.floor(i / MARK), this.marks.length - 1);
    // From the mark at or below i, unless the heads already stand between it and i.
    if (!(this.next <= i && this.next >= Math.max(m, 0) * MARK)) {
      this.lists.forEach((l, j) => (this.heads[j] = m < 0 ? 0 : l.rank(this.marks[m])));
      this.next = Math.max(m, 0) * MARK;
      this.reheap();
    }
    while (this.next < i) this.step();
  }

  /** The id at `next`, moving past it. */
  private step(): string {
    const j = this.heap[0];
    const id = this.keys[j];
    if (this.next % MARK === 0 && this.marks.length === this.next / MARK) this.marks.push(id);
    this.next++;
    const h = ++this.heads[j];
    if (h < this.lists[j].length) {
      this.keys[j] = this.lists[j].at(h) as string;
    } else {
      this.heap[0] = this.heap[this.heap.length - 1];
      this.heap.pop();
    }
    if (this.heap.length > 0) this.down(0);
    return id;
  }

  private reheap(): void {
    this.heap = [];
    this.lists.forEach((l, j) => {
      if (this.heads[j] < l.length) {
        this.keys[j] = l.at(this.heads[j]) as string;
        this.heap.push(j);
      }
    });
    for (let p = (this.heap.length >> 1) - 1; p >= 0; p--) this.down(p);
  }

  private down(p: number): void {
    const { heap, keys } = this;
    for (;;) {
      const l = 2 * p + 1;
      const r = l + 1;
      let least = p;
      if (l < heap.length && keys[heap[l]] < keys[heap[least]]) least = l;
      if (r < heap.length && keys[heap[r]] < keys[heap[least]]) least = r;
      if (least === p) return;
      [heap[p], heap[least]] = [heap[least], heap[p]];
      p = least;
    }
  }
}

/** What ServedIds reads of the storage: its committed records, their scopes, what is sealed, and each commit's ops. */
export interface ServedSource {
  readonly records: ReadonlyMap<string, unknown>;
  /** Whether records have scopes other than '*' (a scope function is set). */
  readonly scoped: boolean;
  scopeOf(id: string): string;
  isSealed(id: string): boolean;
  onChange(listener: (op: { id: string }) => void): () => void;
}

/**
 * The ids a snapshot paging serves (every committed record of its scopes
 * but the sealed), kept in order as commits add them: a paging takes the
 * version of the moment (immutable) in time independent of the store,
 * where sorting in the new ids and filtering every id cost each paging
 * started after a commit the store's size (21 ms at 200,000 records: a
 * token holder alternating one write and one first page kept the host that
 * busy). Every id in one list, for pagings of every scope; and, from the
 * first paging of some scopes on, one list per scope, which such a paging
 * reads as one (UnionIds; records of '*' are in every paging). Built at the
 * first paging.
 */
export class ServedIds {
  private readonly all: SortedChunks;
  /** Per scope: its ids, and the scope each id is listed under. */
  private perScope?: { lists: Map<string, SortedChunks>; listed: Map<string, string> };

  constructor(private readonly source: ServedSource) {
    // Subscribed before the scan, in the same synchronous turn: no commit falls between them.
    source.onChange((op) => this.touch(op.id));
    const ids: string[] = [];
    for (const id of source.records.keys()) if (!source.isSealed(id)) ids.push(id);
    this.all = new SortedChunks(ids.sort());
  }

  /** Every id served as it is now, in order; later commits leave it as it is. */
  current(): IdList {
    return this.all.current();
  }

  /** The ids a paging of `scopes` serves as they are now: those of the scopes named and of '*'. */
  of(scopes: readonly string[]): IdList {
    if (scopes.includes('*') || !this.source.scoped) return this.current();
    const { lists } = (this.perScope ??= this.byScope());
    const versions: ChunkedIds[] = [];
    for (const s of new Set([...scopes, '*'])) {
      const l = lists.get(s);
      if (l && l.length > 0) versions.push(l.current());
    }
    if (versions.length === 0) return EMPTY;
    return versions.length === 1 ? versions[0] : new UnionIds(versions);
  }

  private byScope(): NonNullable<ServedIds['perScope']> {
    const ids = new Map<string, string[]>();
    const listed = new Map<string, string>();
    for (const id of this.source.records.keys()) {
      if (this.source.isSealed(id)) continue;
      const scope = this.source.scopeOf(id);
      let l = ids.get(scope);
      if (!l) ids.set(scope, (l = []));
      l.push(id);
      listed.set(id, scope);
    }
    const lists = new Map<string, SortedChunks>();
    for (const [scope, l] of ids) lists.set(scope, new SortedChunks(l.sort()));
    return { lists, listed };
  }

  /** An id a commit touched: listed (under its scope) when it is a committed record not sealed, out of the lists otherwise. */
  private touch(id: string): void {
    const want = this.source.records.has(id) && !this.source.isSealed(id);
    this.all.set(id, want);
    if (!this.perScope) return;
    const { lists, listed } = this.perScope;
    const was = listed.get(id);
    const scope = want ? this.source.scopeOf(id) : undefined;
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
}

const servedOf = new WeakMap<ServedSource, ServedIds>();

/** A storage's ServedIds, built at the first call and shared by every host unit on it. */
export function servedIds(source: ServedSource): ServedIds {
  let s = servedOf.get(source);
  if (!s) servedOf.set(source, (s = new ServedIds(source)));
  return s;
}

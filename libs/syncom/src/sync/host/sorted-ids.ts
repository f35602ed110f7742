import { lowerBound } from '../../crdt/sorted-map';

/**
 * Every key of the committed records in code-unit order, kept from one
 * paging to the next: the records map only ever gains keys (a delete leaves
 * a tombstone, a purge its marker), and a Map iterates in insertion order,
 * so the keys past the count seen last are the new ones. Only those are
 * sorted and merged in: sorting 100k ids at each bootstrap's first page cost
 * about a twentieth of the whole bootstrap. Each list made is a new array,
 * never changed after: pagings hold on to the one they started with.
 */
export class SortedIds {
  private ids: readonly string[] = [];
  private seen = 0;
  private map?: ReadonlyMap<string, unknown>;

  /** The keys of `map`, sorted. */
  of(map: ReadonlyMap<string, unknown>): readonly string[] {
    if (map !== this.map || map.size < this.seen) {
      // Another map, or one that lost keys (never the committed records): start over.
      this.map = map;
      this.ids = [];
      this.seen = 0;
    }
    if (map.size === this.seen) return this.ids;
    const fresh: string[] = [];
    let i = 0;
    for (const id of map.keys()) if (i++ >= this.seen) fresh.push(id);
    fresh.sort();
    this.ids = this.seen === 0 ? fresh : mergeSorted(this.ids, fresh);
    this.seen = map.size;
    return this.ids;
  }
}

/** Two sorted lists as one (code-unit order, as Array#sort without a comparator). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = b[j] < a[i] ? b[j++] : a[i++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

/** Ids a chunk of a ServedIds holds before it splits in two. */
const CHUNK = 512;

/** A list of ids in order, read by position: an array, or a ServedIds version. */
export interface IdList {
  readonly length: number;
  at(i: number): string | undefined;
}

/** One version of a ServedIds: sorted chunks, never changed after it was taken, and where each starts. */
class ChunkedIds implements IdList {
  constructor(
    private readonly chunks: readonly (readonly string[])[],
    private readonly starts: readonly number[],
    readonly length: number,
  ) {}

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return this.chunks[lo][i - this.starts[lo]];
  }
}

/** What ServedIds reads of the storage: its committed records, what is sealed, and each commit's ops. */
export interface ServedSource {
  readonly records: ReadonlyMap<string, unknown>;
  isSealed(id: string): boolean;
  onChange(listener: (op: { id: string }) => void): () => void;
}

/**
 * The ids a paging of every scope serves (every committed record but the
 * sealed), kept in order as commits add them: a paging takes the version of
 * the moment (current(), immutable) in time independent of the store, where
 * sorting in the new ids and filtering every id cost each paging started
 * after a commit the store's size (21 ms at 200,000 records: a token holder
 * alternating one write and one first page kept the host that busy). Kept
 * in chunks of up to 2 x CHUNK, so a new id copies one chunk (and the chunk
 * list, when a version holds it), not the list. Built at the first paging.
 */
export class ServedIds {
  private chunks: string[][] = [];
  /** Each chunk's first id (chunks are never empty but a lone one). */
  private firsts: string[] = [];
  private size = 0;
  private version?: ChunkedIds;
  /** Chunks a version taken holds: changed only as copies. */
  private readonly held = new WeakSet<string[]>();

  constructor(private readonly source: ServedSource) {
    // Subscribed before the scan, in the same synchronous turn: no commit falls between them.
    source.onChange((op) => this.touch(op.id));
    const ids: string[] = [];
    for (const id of source.records.keys()) if (!source.isSealed(id)) ids.push(id);
    ids.sort();
    for (let i = 0; i < ids.length; i += CHUNK) this.chunks.push(ids.slice(i, i + CHUNK));
    if (this.chunks.length === 0) this.chunks.push([]);
    this.firsts = this.chunks.map((c) => c[0] ?? '');
    this.size = ids.length;
  }

  /** The ids as they are now, in order; later commits leave it as it is. */
  current(): IdList {
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

  /** An id a commit touched: in the list when it is a committed record not sealed, out of it otherwise. */
  private touch(id: string): void {
    const want = this.source.records.has(id) && !this.source.isSealed(id);
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

const servedOf = new WeakMap<ServedSource, ServedIds>();

/** A storage's ServedIds, built at the first call and shared by every host unit on it. */
export function servedIds(source: ServedSource): ServedIds {
  let s = servedOf.get(source);
  if (!s) servedOf.set(source, (s = new ServedIds(source)));
  return s;
}

import { type ChunkedIds, ScopedOrder } from '../../crdt/sorted-chunks';

/** How often a union of lists notes the id it stands at, to come back to any position it walked past. */
const MARK = 64;

/** A list of ids in order, read by position: an array, or a version of ServedIds. */
export interface IdList {
  readonly length: number;
  at(i: number): string | undefined;
}

const EMPTY: IdList = { length: 0, at: () => undefined };

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
 * but the sealed), kept in order as commits add them (ScopedOrder): a
 * paging takes the version of the moment (immutable) in time independent
 * of the store, where sorting in the new ids and filtering every id cost
 * each paging started after a commit the store's size (21 ms at 200,000
 * records: a token holder alternating one write and one first page kept
 * the host that busy). A paging of some scopes reads those scopes' lists
 * (and '*''s: its records are in every paging) as one (UnionIds). Built at
 * the first paging.
 */
export class ServedIds {
  private readonly order: ScopedOrder;

  constructor(private readonly source: ServedSource) {
    // Subscribed before the scan, in the same synchronous turn: no commit falls between them.
    source.onChange((op) => this.order.touch(op.id));
    this.order = new ScopedOrder(source.records.keys(), (id) => source.records.has(id) && !source.isSealed(id), (id) => source.scopeOf(id));
  }

  /** Every id served as it is now, in order; later commits leave it as it is. */
  current(): IdList {
    return this.order.every();
  }

  /** The ids a paging of `scopes` serves as they are now: those of the scopes named and of '*'. */
  of(scopes: readonly string[]): IdList {
    if (scopes.includes('*') || !this.source.scoped) return this.current();
    const versions: ChunkedIds[] = [];
    for (const s of new Set([...scopes, '*'])) {
      const l = this.order.scope(s);
      if (l) versions.push(l);
    }
    if (versions.length === 0) return EMPTY;
    return versions.length === 1 ? versions[0] : new UnionIds(versions);
  }
}

const servedOf = new WeakMap<ServedSource, ServedIds>();

/** A storage's ServedIds, built at the first call and shared by every host unit on it. */
export function servedIds(source: ServedSource): ServedIds {
  let s = servedOf.get(source);
  if (!s) servedOf.set(source, (s = new ServedIds(source)));
  return s;
}

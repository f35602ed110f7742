import type { Entry } from '../crdt';
import { entryDigest, hashItem, ItemIndex, type ItemSet, type ReconcileItem } from '../sync/reconcile';
import type { Storage } from './storage';

/** What the index holds of one record: its item, the item's hash, and the scope it is filed under. */
interface Held {
  item: ReconcileItem;
  hash: Buffer;
  scope: string;
}

/** The empty set: a label no record is in. */
const EMPTY = new ItemIndex().snapshot();

/**
 * The reconciliation items of a storage's records (RECONCILE.md, The set),
 * kept up to date as batches commit: one index over every record a peer may
 * be served (sealed ones never, tombstones and purge markers included) and
 * one per scope. A commit only marks the ids it touched (the storage's
 * 'change' event, emitted at the commit point for every op applied, once the
 * batch's records were rescoped); the next read digests those ids again and
 * moves their items, so a reconciliation after k writes costs O(k log n),
 * not a digest of every record. Scopes and the sealed mark are read at that
 * read, as a full build reads them. Built at the first read (one digest per
 * record, once): a node that never reconciles pays nothing.
 */
export class RecordDigests {
  private readonly held = new Map<string, Held>();
  private readonly all: ItemIndex;
  private readonly scopes = new Map<string, ItemIndex>();
  private readonly dirty = new Set<string>();

  constructor(private readonly storage: Storage) {
    // Subscribed before the scan, in the same synchronous turn: no commit falls between them.
    storage.parts.events.on('change', (op) => this.touched(op.id));
    const byScope = new Map<string, Held[]>();
    for (const [id, e] of storage.parts.committer.committed) {
      const h = this.heldOf(id, e);
      if (!h) continue;
      this.held.set(id, h);
      const list = byScope.get(h.scope) ?? [];
      if (list.length === 0) byScope.set(h.scope, list);
      list.push(h);
    }
    this.all = new ItemIndex(this.held.values());
    for (const [scope, list] of byScope) this.scopes.set(scope, new ItemIndex(list));
  }

  /** An id whose committed entry changed: digested again at the next read. */
  touched(id: string): void {
    this.dirty.add(id);
  }

  /**
   * The set of a scope label under a grant, as it is now (RECONCILE.md,
   * Scopes): with '*' granted, label '*' is every record; otherwise a label
   * is the records of exactly that scope ('*': the global scope's).
   */
  labelSet(label: string, granted: readonly string[]): ItemSet {
    this.flush();
    if (label === '*' && granted.includes('*')) return this.all.snapshot();
    return this.scopes.get(label)?.snapshot() ?? EMPTY;
  }

  /** Items held, every scope together. */
  get size(): number {
    return this.held.size;
  }

  private flush(): void {
    for (const id of this.dirty) this.refresh(id);
    this.dirty.clear();
  }

  /** A record as the index holds it, or undefined when it is never served. */
  private heldOf(id: string, e: Entry | undefined): Held | undefined {
    if (!e || this.storage.isSealed(id)) return undefined;
    const item: ReconcileItem = { ts: e.latest[0], id, digest: entryDigest(e) };
    return { item, hash: hashItem(item), scope: this.storage.scopeOf(id) };
  }

  /** Bring one id's item up to date: moved, changed or taken out. */
  private refresh(id: string): void {
    const old = this.held.get(id);
    const now = this.heldOf(id, this.storage.parts.committer.committed.get(id));
    if (old && now && old.scope === now.scope && old.item.ts === now.item.ts && old.item.digest === now.item.digest) return;
    if (old) {
      this.all.delete(id);
      this.scopes.get(old.scope)?.delete(id);
      this.held.delete(id);
    }
    if (!now) return;
    this.held.set(id, now);
    this.all.put(now.item, now.hash);
    let scoped = this.scopes.get(now.scope);
    if (!scoped) this.scopes.set(now.scope, (scoped = new ItemIndex()));
    scoped.put(now.item, now.hash);
  }
}

const indexes = new WeakMap<Storage, RecordDigests>();

/** A storage's digest index, built at the first call. */
export function recordDigests(storage: Storage): RecordDigests {
  let d = indexes.get(storage);
  if (!d) indexes.set(storage, (d = new RecordDigests(storage)));
  return d;
}

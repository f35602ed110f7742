import type { Entry } from '../crdt';
import { entryDigest, hashItem, ItemIndex, type ItemSet, type ReconcileItem, WIRE_LIMITS } from '../reconcile';
import type { Replica } from './replica';

/** Ids waiting to be digested again at most: past this a commit brings them up to date (about 10-30 ms of digests). */
const FLUSH_AT = 1024;

/** What the index holds of one record: its item, and the scope it is filed under. */
interface Held {
  item: ReconcileItem;
  scope: string;
}

/**
 * The reconciliation items of a storage's records (RECONCILE.md, The set),
 * kept up to date as batches commit: one index over every record a peer may
 * be served (sealed ones never, tombstones and purge markers included) and
 * one per scope a peer asked for. A commit marks the ids it touched (the
 * storage's 'change' event, emitted at the commit point for every op
 * applied, once the batch's records were rescoped); the next read, or the
 * commit that marks the 1024th, digests those ids again and moves their
 * items, so a reconciliation after k writes costs O(k log n), not a digest
 * of every record. Scopes and the sealed mark are read then, as a full
 * build reads them. Built at the first read (one digest per record, once):
 * a node that never reconciles pays nothing.
 */
export class RecordDigests {
  private readonly held = new Map<string, Held>();
  private readonly all: ItemIndex;
  private readonly scopes = new Map<string, ItemIndex>();
  /** Held ids per scope: a scope's index is built from its own records, and a label no record is in is never kept. */
  private readonly members = new Map<string, Set<string>>();
  private readonly dirty = new Set<string>();

  constructor(private readonly storage: Replica) {
    // Subscribed before the scan, in the same synchronous turn: no commit falls between them.
    storage.onChange((op) => this.touched(op.id));
    for (const [id, e] of storage.records) {
      const h = this.heldOf(id, e);
      if (h) this.hold(h);
    }
    this.all = new ItemIndex(Array.from(this.held.values(), (h) => h.item));
  }

  /**
   * An id whose committed entry changed: digested again at the next read, or
   * at once when many wait, so that a store written hard between two
   * reconciliations does not make the next one digest them all in one go.
   */
  touched(id: string): void {
    this.dirty.add(id);
    if (this.dirty.size >= FLUSH_AT) this.flush();
  }

  /**
   * The set of a scope label under a grant, as it is now (RECONCILE.md,
   * Scopes): with '*' granted, label '*' is every record; otherwise a label
   * is the records of exactly that scope ('*': the global scope's).
   */
  labelSet(label: string, granted: readonly string[]): ItemSet {
    this.flush();
    if (label === '*' && granted.includes('*')) return this.all.snapshot();
    return this.scoped(label).snapshot();
  }

  /**
   * A scope's index, built from its held items at its first ask (hashed
   * again, not digested) and kept up to date from then on. A node whose
   * peers are all granted '*' never builds one.
   */
  private scoped(scope: string): ItemIndex {
    let index = this.scopes.get(scope);
    const ids = this.members.get(scope);
    if (!index && !ids) return EMPTY;
    if (!index) {
      const mine = Array.from(ids ?? [], (id) => (this.held.get(id) as Held).item);
      this.scopes.set(scope, (index = new ItemIndex(mine)));
    }
    return index;
  }

  private flush(): void {
    for (const id of this.dirty) this.refresh(id);
    this.dirty.clear();
  }

  private hold(h: Held): void {
    this.held.set(h.item.id, h);
    let ids = this.members.get(h.scope);
    if (!ids) this.members.set(h.scope, (ids = new Set()));
    ids.add(h.item.id);
  }

  /** An id out of a scope; a scope left empty keeps no index (a later ask builds one again, from its own records). */
  private release(scope: string, id: string): void {
    const ids = this.members.get(scope);
    ids?.delete(id);
    if (ids?.size) return;
    this.members.delete(scope);
    this.scopes.delete(scope);
  }

  /**
   * A record as the index holds it, or undefined when it is never served. A
   * record no reconciliation can key (the op checks keep them out: an id
   * past the wire's 512 characters, a ts that is no safe integer) is left
   * out rather than failing every reconciliation of the store.
   */
  private heldOf(id: string, e: Entry | undefined): Held | undefined {
    if (!e || this.storage.isSealed(id)) return undefined;
    const ts = e.latest?.[0];
    if (id.length === 0 || id.length > WIRE_LIMITS.id || !Number.isSafeInteger(ts) || ts < 0) return undefined;
    return { item: { ts: e.latest[0], id, digest: entryDigest(e) }, scope: this.storage.scopeOf(id) };
  }

  /** Bring one id's item up to date: moved, changed or taken out. */
  private refresh(id: string): void {
    const old = this.held.get(id);
    const now = this.heldOf(id, this.storage.records.get(id));
    if (old && now && old.scope === now.scope && old.item.ts === now.item.ts && old.item.digest === now.item.digest) return;
    if (old) {
      this.all.delete(id);
      this.scopes.get(old.scope)?.delete(id);
      this.held.delete(id);
      if (old.scope !== now?.scope) this.release(old.scope, id);
    }
    if (!now) return;
    this.hold(now);
    const hash = hashItem(now.item);
    this.all.put(now.item, hash);
    this.scopes.get(now.scope)?.put(now.item, hash);
  }
}

/** The set of a label no record is in; never changed (nothing is put in it). */
const EMPTY = new ItemIndex();

const indexes = new WeakMap<Replica, RecordDigests>();

/** A replica's digest index, built at the first call. */
export function recordDigests(storage: Replica): RecordDigests {
  let d = indexes.get(storage);
  if (!d) indexes.set(storage, (d = new RecordDigests(storage)));
  return d;
}

import { type Entry, isHidden } from '../crdt';
import { type ChunkedIds, ScopedOrder } from '../crdt/sorted-chunks';

/**
 * The ids storage.list() reads: every shown record (not deleted or purged)
 * in id order, and each scope's from the first list of a scope on, built
 * at the first list() and kept by the commit pipeline for each batch
 * before its change events go out, so a list() made by a change listener
 * sees the batch. A page then costs the records it returns: list() sorted
 * every id each call before (about 18 ms at 200,000 records).
 */
export class ListedIds {
  private order?: ScopedOrder;

  /** A record a commit changed (nothing to do before the first list()). */
  touch(id: string): void {
    this.order?.touch(id);
  }

  /** The ids in order, of one scope when given (undefined: a scope with none). */
  of(committed: ReadonlyMap<string, Entry>, scopeOf: (id: string) => string, scope?: string): ChunkedIds | undefined {
    const shown = (id: string) => {
      const e = committed.get(id);
      return !!e && !isHidden(e);
    };
    const order = (this.order ??= new ScopedOrder(committed.keys(), shown, scopeOf));
    return scope === undefined ? order.every() : order.scope(scope);
  }
}

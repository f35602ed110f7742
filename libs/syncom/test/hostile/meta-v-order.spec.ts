import { applyOp, type Entry, joinEntries } from '../../src/crdt';
import type { Op } from '../../src/op/types';
import { entryDigest } from '../../src/reconcile';

/**
 * meta.v does not depend on the order ops arrive in (GUAR-1, OPS-17): a v1
 * delete stamped after a v2 write leaves the same meta.v whether the write
 * arrived first or after it (when the delete's newer reset makes the write a
 * no-op). A delete kept the record's previous v, so two nodes held one record
 * with different meta.v, and reconciliation found it differing forever.
 * Found by the simulation's holds option (star seed 3: a held v2 write landed
 * after a later delete).
 */

const base: Pick<Op, 'id' | 'seq'> = { id: 'r1', seq: 1 };
const first: Op = { ...base, origin: 'a', ts: 100, type: 'write', data: { x: 0 } };
const v2write: Op = { ...base, origin: 'b', ts: 200, type: 'write', data: { x: 2 }, v: 2 };
const v1delete: Op = { ...base, origin: 'c', ts: 300, type: 'delete', v: 1 };
const noSchemaDelete: Op = { ...v1delete, v: undefined };

const fold = (ops: Op[]): Entry => ops.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, undefined) as Entry;

describe('meta.v is the same in any order of arrival', () => {
  it('GUAR-1 OPS-17: a v2 write before or after a later v1 delete gives one entry, one digest', () => {
    const inOrder = fold([first, v2write, v1delete]);
    const late = fold([first, v1delete, v2write]);
    expect(late).toEqual(inOrder);
    expect(entryDigest(late)).toBe(entryDigest(inOrder));
    expect(inOrder.v).toBe(1);
  });

  it('GUAR-1 OPS-17: a delete without a schema clears meta.v in either order; joining both states agrees', () => {
    const a = fold([first, v2write, noSchemaDelete]);
    const b = fold([first, noSchemaDelete, v2write]);
    expect(a).toEqual(b);
    expect(a.v).toBeUndefined();
    expect(joinEntries(a, fold([v2write]))).toEqual(joinEntries(fold([v2write]), b));
  });
});

import fc from 'fast-check';
import { buildItemSet, createReconciler, ItemIndex, type ItemSet, type ReconcileItem } from '../../src/reconcile';
import { fcRuns, runProtocol } from './helpers';
import { expectSameSet } from './same-set';

type Step = { put: ReconcileItem } | { del: string } | { snap: true };

const ids = fc.constantFrom(...Array.from({ length: 24 }, (_, k) => `r${k}`));
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ ts: fc.integer({ min: 0, max: 6 }), id: ids, digest: fc.constantFrom('a', 'b', 'c') }).map((put) => ({ put })) },
  { weight: 3, arbitrary: ids.map((del) => ({ del })) },
  { weight: 1, arbitrary: fc.constant({ snap: true as const }) },
);

describe('RECON ItemIndex: a set kept item by item equals the set built at once', () => {
  it('after any puts and deletes, with any bucket size; every snapshot stays as it was taken', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.integer({ min: 4, max: 12 }), (steps, bucket) => {
        const index = new ItemIndex([], { bucket });
        const model = new Map<string, ReconcileItem>();
        const kept: { set: ItemSet; items: ReconcileItem[] }[] = [];
        for (const s of steps) {
          if ('put' in s) {
            index.put(s.put);
            model.set(s.put.id, s.put);
          } else if ('del' in s) {
            expect(index.delete(s.del)).toBe(model.delete(s.del));
          } else {
            kept.push({ set: index.snapshot(), items: [...model.values()] });
          }
          expect(index.size).toBe(model.size);
        }
        expectSameSet(index.snapshot(), buildItemSet(model.values()));
        for (const k of kept) expectSameSet(k.set, buildItemSet(k.items));
      }),
      { numRuns: fcRuns(300) },
    );
  });

  it('an index built from items equals buildItemSet, and the same snapshot is handed out until a change', () => {
    const items = Array.from({ length: 3000 }, (_, k) => ({ ts: k % 97, id: `id-${k}`, digest: `d${k % 13}` }));
    const index = new ItemIndex(items, { bucket: 64 });
    const a = index.snapshot();
    expect(index.snapshot()).toBe(a);
    expectSameSet(a, buildItemSet(items));
    index.put({ ts: 5, id: 'id-7', digest: 'changed' });
    expect(index.snapshot()).not.toBe(a);
  });

  it('a reconciler over a snapshot finds what one over the items finds', () => {
    const mine = Array.from({ length: 2000 }, (_, k) => ({ ts: 1000 + k, id: `id-${k}`, digest: 'x' }));
    const theirs = mine.filter((_, k) => k % 50 !== 0).map((it, k) => (k % 77 === 0 ? { ...it, digest: 'y' } : it));
    const index = new ItemIndex([], { bucket: 32 });
    for (const it of mine) index.put(it);
    const want = runProtocol(mine, theirs);
    const A = createReconciler({ set: index.snapshot() });
    const B = createReconciler({ items: theirs });
    const have: string[] = [];
    const need: string[] = [];
    for (let msg = A.initiate(); msg;) {
      const answer = B.reconcile(msg);
      if (!answer.ok || !answer.next) throw new Error('refused');
      const s = A.reconcile(answer.next);
      if (!s.ok) throw new Error(s.reason);
      have.push(...s.have);
      need.push(...s.need);
      msg = s.next as typeof msg;
    }
    expect(have.sort()).toEqual([...want.have].sort());
    expect(need.sort()).toEqual([...want.need].sort());
  });

  it('refuses a malformed item with a TypeError and keeps the set unchanged', () => {
    const index = new ItemIndex([{ ts: 1, id: 'a', digest: 'd' }]);
    expect(() => index.put({ ts: -1, id: 'b', digest: 'd' })).toThrow(TypeError);
    expect(() => index.put({ ts: 1, id: '', digest: 'd' })).toThrow(TypeError);
    expect(() => new ItemIndex([], { bucket: 2 })).toThrow(TypeError);
    expectSameSet(index.snapshot(), buildItemSet([{ ts: 1, id: 'a', digest: 'd' }]));
  });
});

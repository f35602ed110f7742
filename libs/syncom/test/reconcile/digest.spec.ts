import fc from 'fast-check';
import { applyOp, type Entry, type Field, joinEntries } from '../../src/crdt';
import type { Op } from '../../src/op/types';
import { entryDigest, entryItem } from '../../src/reconcile';
import { fcRuns } from './helpers';

const base: Entry = {
  id: 'r1',
  latest: [20, 'B'],
  reset: [10, 'A'],
  v: 2,
  fields: {
    title: { k: 'r', s: [10, 'A'], val: { b: 1, a: [1, 2] } },
    views: { k: 'c', by: { A: [3, 12], B: [1, 20] } },
    tags: { k: 's', el: { '"x"': { add: ['11:A', '12:B'], rem: ['11:A'] } } },
  },
};

/** The same state built with every object's keys in reverse order. */
function reversedKeys<T>(x: T): T {
  if (Array.isArray(x)) return x.map(reversedKeys) as T;
  if (typeof x !== 'object' || x === null) return x;
  return Object.fromEntries(Object.entries(x).reverse().map(([k, v]) => [k, reversedKeys(v)])) as T;
}

describe('RECON entryDigest', () => {
  it('is 22 base64url characters, and entryItem keys the record by its newest stamp', () => {
    expect(entryDigest(base)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(entryItem(base)).toEqual({ ts: 20, id: 'r1', digest: entryDigest(base) });
  });

  it('does not depend on key order, nor on the order or repetition of set tags', () => {
    expect(entryDigest(reversedKeys(base))).toBe(entryDigest(base));
    const shuffled = structuredClone(base);
    (shuffled.fields as Record<string, Field>).tags = { k: 's', el: { '"x"': { add: ['12:B', '11:A', '12:B'], rem: ['11:A'] } } };
    expect(entryDigest(shuffled)).toBe(entryDigest(base));
  });

  it('changes with any part of the merge state', () => {
    const variants: Entry[] = [
      { ...base, id: 'r2' },
      { ...base, latest: [21, 'B'] },
      { ...base, reset: [10, 'B'] },
      { ...base, del: true },
      { ...base, v: 3 },
      { ...base, purged: [30, 'A'] },
      { ...base, fields: { ...(base.fields as Record<string, Field>), title: { k: 'r', s: [10, 'A'], val: { b: 1, a: [2, 1] } } } },
      { ...base, fields: { ...(base.fields as Record<string, Field>), views: { k: 'c', by: { A: [3, 12], B: [2, 20] } } } },
      { ...base, fields: { ...(base.fields as Record<string, Field>), tags: { k: 's', el: { '"x"': { add: ['11:A', '12:B'], rem: [] } } } } },
    ];
    const digests = new Set([base, ...variants].map(entryDigest));
    expect(digests.size).toBe(variants.length + 1);
  });

  it("replicas that took the same ops in any order (each origin's in its own order) digest alike", () => {
    const op = fc.record({
      type: fc.constantFrom<'set' | 'add' | 'inc'>('set', 'add', 'inc'),
      origin: fc.constantFrom('A', 'B'),
      n: fc.integer({ min: 0, max: 3 }),
      ts: fc.integer({ min: 1, max: 500 }),
    });
    const toOp = (o: { type: Op['type']; origin: string; n: number; ts: number }, seq: number): Op => ({
      origin: o.origin, seq, ts: o.ts, type: o.type, id: 'r',
      ...(o.type === 'set' ? { data: { a: o.n } } : o.type === 'add' ? { key: 's', value: [o.n] } : { key: 'c', value: o.n }),
    });
    const replay = (ops: Op[]) => ops.reduce<Entry | undefined>((e, x) => applyOp(e, x).entry, undefined) as Entry;
    fc.assert(
      fc.property(fc.uniqueArray(op, { selector: (o) => o.ts, minLength: 1, maxLength: 12 }), (list) => {
        // Per origin in ts order, as a log delivers them (a counter takes each origin's incs in order).
        const ops = [...list].sort((x, y) => x.ts - y.ts).map(toOp);
        const of = (origin: string) => ops.filter((x) => x.origin === origin);
        const inTsOrder = replay(ops);
        for (const other of [replay([...of('A'), ...of('B')]), replay([...of('B'), ...of('A')])]) {
          expect(entryDigest(other)).toBe(entryDigest(inTsOrder));
          expect(entryDigest(joinEntries(other, inTsOrder))).toBe(entryDigest(inTsOrder));
        }
      }),
      { numRuns: fcRuns(200) },
    );
  });
});

import fc from 'fast-check';
import { applyOp, type Entry, type Field, joinEntries, readEntry } from '../../src/crdt';
import type { Op } from '../../src/op/types';

// One origin's incs to a record that moves between scopes travel in two streams
// (origin@A, origin@B): each stream delivers in order, the two interleave freely.
const inc = (origin: string, scope: string | undefined, ts: number, value: number): Op =>
  ({ origin, seq: ts, ts, type: 'inc', id: 'c', key: 'n', value, ...(scope ? { scope } : {}) }) as Op;

const applyAll = (ops: Op[], from?: Entry) => ops.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, from);
const total = (e: Entry | undefined) => (e ? (readEntry(e) as { n?: number }).n : undefined);

describe('a counter across scope streams (KIND-3, KIND-4)', () => {
  it('counts an older inc of one origin that arrives after a newer one from another scope stream', () => {
    const inA = inc('x', 'A', 10, 1);
    const inB = inc('x', 'B', 20, 5);
    expect(total(applyAll([inA, inB]))).toBe(6);
    expect(total(applyAll([inB, inA]))).toBe(6);
  });

  it('still takes a duplicate of an inc once, in its own stream and in the global scope', () => {
    const a = inc('x', 'A', 10, 2);
    const g = inc('x', undefined, 11, 3);
    expect(total(applyAll([a, g, a, g]))).toBe(5);
  });

  it('joins two partial states of one origin, each from a different scope stream, to the sum', () => {
    const left = applyAll([inc('x', 'A', 10, 1), inc('x', 'A', 30, 1)]) as Entry;
    const right = applyAll([inc('x', 'B', 20, 4)]) as Entry;
    expect(total(joinEntries(left, right))).toBe(6);
    expect(total(joinEntries(right, left))).toBe(6);
  });

  it('keeps the key of a global-scope slot as the origin alone, as stores written before scopes had slots read it', () => {
    const e = applyAll([inc('x', undefined, 10, 1), inc('x', '*', 11, 1)]) as Entry;
    expect(Object.keys(((e.fields as Record<string, Field>).n as { by: object }).by)).toEqual(['x']);
  });

  it('converges to the sum of distinct incs, whatever the interleaving of streams and duplicates (property)', () => {
    const stream = fc.record({
      origin: fc.constantFrom('x', 'y'),
      scope: fc.constantFrom(undefined, 'A', 'B'),
      values: fc.array(fc.integer({ min: -3, max: 5 }), { minLength: 1, maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(stream, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 60 }), (streams, p1, p2) => {
        // One ts clock per origin, shared by its scopes, as a node's clock is.
        const clock: Record<string, number> = {};
        const byStream = new Map<string, Op[]>();
        let sum = 0;
        for (const s of streams) {
          const key = `${s.origin}@${s.scope ?? '*'}`;
          const list = byStream.get(key) ?? [];
          for (const v of s.values) {
            clock[s.origin] = (clock[s.origin] ?? 0) + 1;
            list.push(inc(s.origin, s.scope, clock[s.origin], v));
            sum += v;
          }
          byStream.set(key, list);
        }
        const deliver = (picks: number[]) => {
          // Each stream in order; a pick chooses the next stream, and sometimes repeats the op just delivered.
          const queues = [...byStream.values()].map((l) => [...l]);
          const out: Op[] = [];
          let last: Op | undefined;
          for (const p of picks) {
            if (p % 5 === 0 && last) { out.push(last); continue; }
            const q = queues.filter((x) => x.length)[p % Math.max(1, queues.filter((x) => x.length).length)];
            if (q) out.push((last = q.shift() as Op));
          }
          for (const q of queues) out.push(...q);
          return applyAll(out);
        };
        const one = deliver(p1);
        const two = deliver(p2);
        expect(total(one)).toBe(sum);
        expect(total(two)).toBe(sum);
        expect(total(joinEntries(one as Entry, two as Entry))).toBe(sum);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });
});

import fc from 'fast-check';
import { applyOp, type Entry, isHidden, joinEntries, readEntry } from '../../src/crdt';
import { deliver } from './interleave';
import type { Op, OpType } from '../../src/op/types';

const ORIGINS = ['A', 'B', 'C'];
const IDS = ['r1', 'r2'];

interface Draft { type: OpType; id: string; ts: number; data?: Record<string, unknown>; key?: string; value?: unknown }

// Field kinds are fixed (a, b registers; n a counter; s a set), which excludes the
// kind clash (RESET-10). Resets stamp below 1000 and incs above it, which excludes
// the counter incremented on both sides of a concurrent reset (RESET-6).
const reset = fc.record({
  type: fc.constantFrom<OpType>('write', 'delete'),
  id: fc.constantFrom(...IDS),
  ts: fc.integer({ min: 1, max: 999 }),
  data: fc.record({ a: fc.integer({ min: 0, max: 3 }), b: fc.constantFrom('x', 'y') }, { requiredKeys: [] }),
});
const update = fc.record({
  type: fc.constant<OpType>('set'), id: fc.constantFrom(...IDS), ts: fc.integer({ min: 1, max: 2000 }),
  data: fc.record({ a: fc.integer({ min: 0, max: 3 }), b: fc.constantFrom('x', 'y', 'z') }, { requiredKeys: [] }),
});
const inc = fc.record({ type: fc.constant<OpType>('inc'), id: fc.constantFrom(...IDS), ts: fc.integer({ min: 1001, max: 2000 }), key: fc.constant('n'), value: fc.integer({ min: -3, max: 5 }) });
const add = fc.record({ type: fc.constant<OpType>('add'), id: fc.constantFrom(...IDS), ts: fc.integer({ min: 1, max: 2000 }), key: fc.constant('s'), value: fc.array(fc.constantFrom(1, '1', 'a', { k: 1 }), { minLength: 1, maxLength: 2 }) });
const remove = fc.record({ type: fc.constant<OpType>('remove'), id: fc.constantFrom(...IDS), ts: fc.integer({ min: 1, max: 2000 }), key: fc.constant('s'), value: fc.constant(null) });
const draft = fc.oneof(reset, update, inc, add, remove) as fc.Arbitrary<Draft>;

/** Each origin's ops in ts order with seqs; removes name tags of adds stamped before them. */
function build(per: Draft[][]): Op[][] {
  const adds: { ts: number; origin: string; id: string; value: unknown[] }[] = [];
  const streams = per.map((drafts, o) => {
    const seen = new Set<number>();
    const sorted = drafts.filter((d) => !seen.has(d.ts) && seen.add(d.ts)).sort((x, y) => x.ts - y.ts);
    return sorted.map((d, i) => ({ ...d, origin: ORIGINS[o], seq: i + 1 }) as Op);
  });
  for (const s of streams) for (const op of s) if (op.type === 'add') adds.push({ ts: op.ts, origin: op.origin, id: op.id, value: op.value as unknown[] });
  for (const s of streams) for (const op of s) {
    if (op.type !== 'remove') continue;
    const seen = adds.filter((a) => a.id === op.id && a.ts < op.ts);
    op.value = seen.map((a) => [a.value[0], [`${a.ts}:${a.origin}`]]);
  }
  return streams;
}

function replica(ops: Op[]): Record<string, unknown> {
  const m = new Map<string, Entry>();
  for (const op of ops) m.set(op.id, applyOp(m.get(op.id), op).entry);
  const view: Record<string, unknown> = {};
  for (const [id, e] of [...m].sort()) view[id] = isHidden(e) ? null : readEntry(e);
  return view;
}

describe('convergence (property)', () => {
  it('GUAR-1 GUAR-2 CLK-2 KIND-2 KIND-3 KIND-5 KIND-7: ops from three origins in any per-origin-ordered interleaving, with duplicates, give equal records', () => {
    const history = fc.tuple(fc.array(draft, { maxLength: 12 }), fc.array(draft, { maxLength: 12 }), fc.array(draft, { maxLength: 12 }));
    const order = fc.array(fc.nat(), { maxLength: 40 });
    fc.assert(
      fc.property(history, order, order, fc.array(fc.nat({ max: 40 }), { maxLength: 5 }), (per, p1, p2, dups) => {
        const streams = build(per);
        const one = replica(deliver(streams, p1, []));
        const two = replica(deliver(streams, p2, dups));
        expect(two).toEqual(one);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });

  it('OPS-12 BOOT-4: joining entries is commutative, associative and idempotent, and equals applying the union', () => {
    fc.assert(
      fc.property(fc.tuple(fc.array(draft, { maxLength: 8 }), fc.array(draft, { maxLength: 8 }), fc.array(draft, { maxLength: 8 })), (per) => {
        const streams = build(per.map((d) => d.map((x) => ({ ...x, id: 'r1' }))));
        const entries = streams.map((s) => s.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, undefined));
        const [a, b, c] = entries.map((e, i) => e ?? applyOp(undefined, { origin: ORIGINS[i], seq: 1, ts: 0, type: 'advance', id: 'r1' }).entry);
        const norm = (e: Entry) => (isHidden(e) ? null : readEntry(e));
        expect(norm(joinEntries(a, b))).toEqual(norm(joinEntries(b, a)));
        expect(norm(joinEntries(joinEntries(a, b), c))).toEqual(norm(joinEntries(a, joinEntries(b, c))));
        expect(norm(joinEntries(a, a))).toEqual(norm(a));
        const all = streams.flat().sort((x, y) => x.ts - y.ts || (x.origin < y.origin ? -1 : 1));
        expect(norm(joinEntries(joinEntries(a, b), c))).toEqual(all.length ? replica(all).r1 : {});
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });
});

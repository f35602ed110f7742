import fc from 'fast-check';
import { applyOp, compareStamps, type Entry, plainEntry, raisesPurge, stampOfTag } from '../../src/crdt';
import { canonicalJson } from '../../src/op/canonical';
import type { Op, OpType, Stamp } from '../../src/op/types';
import { entryDigest } from '../../src/reconcile/digest';
import { deliver } from './interleave';

// Three origins write one record with every op kind: whole writes, deletes, sets, incs, set adds and removes, and
// purges, beside merges of states a host built from a prefix of each stream (a snapshot page, an anti-entropy
// join). Each origin's stamps rise with its seqs, and its ops arrive in seq order, as the engine guarantees
// (CLK-3); across origins stamps tie often. Incs are stamped above every reset, which leaves out the documented
// counter/reset case (RESET-6); each field keeps one kind (RESET-10). The purge property of
// purge-convergence.spec.ts has no incs (it shuffles one stream's ops out of order, which a counter slot does not
// take); this one has them, with merges carrying counter slots, and compares whole entries to the byte.

const SEED = 20251207;
const ORIGINS = ['A', 'B', 'C'];
const value = fc.constantFrom(0, 1, 'a', null, { p: 1, q: 2 });
const data = fc.record({ x: value, y: value }, { requiredKeys: [] });
const element = fc.constantFrom(1, 'e', { k: 1 });
const tag = fc.tuple(fc.integer({ min: 1, max: 12 }), fc.constantFrom(...ORIGINS)).map(([t, o]) => `${t}:${o}`);

const body = fc.oneof(
  { arbitrary: fc.record({ type: fc.constantFrom<OpType>('write', 'set'), data, v: fc.constantFrom(undefined, 1, 2) }), weight: 4 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('delete') }), weight: 2 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('inc'), key: fc.constant('n'), value: fc.integer({ min: -2, max: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('add'), key: fc.constant('s'), value: fc.array(element, { minLength: 1, maxLength: 2 }) }), weight: 2 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('remove'), key: fc.constant('s'), value: fc.array(fc.tuple(element, fc.array(tag, { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 2 }) }), weight: 2 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('purge') }), weight: 1 },
) as fc.Arbitrary<Partial<Op>>;

/** Each origin's ops in seq order with rising stamps from its start; incs last and stamped above 100; a remove names only tags older than itself. */
function streamsOf(per: Partial<Op>[][], starts: number[]): Op[][] {
  return per.map((bodies, o) => {
    const origin = ORIGINS[o];
    let ts = starts[o];
    const sorted = [...bodies].sort((x, y) => Number(x.type === 'inc') - Number(y.type === 'inc'));
    return sorted.map((b, i) => {
      ts = b.type === 'inc' ? Math.max(ts + 1, 100) : ts + 1;
      const op = { ...b, origin, ts, id: 'r', seq: i + 1 } as Op;
      if (op.type !== 'write') delete op.v;
      if (op.type === 'remove') op.value = (op.value as [unknown, string[]][]).map(([x, tags]) => [x, tags.filter((t) => compareStamps(stampOfTag(t), [ts, origin]) < 0)]);
      return op;
    });
  });
}

const applyAll = (list: readonly Op[]): Entry | undefined => list.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, undefined);

/** As the storage paths do (peer.ts, bootstrap.ts): a purged record takes a purge, or a merge raising its marker, and nothing else. */
const applyAsStored = (list: readonly Op[]): Entry | undefined =>
  list.reduce<Entry | undefined>((e, op) => (e?.purged && op.type !== 'purge' && !(op.type === 'merge' && raisesPurge(e, op.data as unknown as Entry)) ? e : applyOp(e, op).entry), undefined);

/** A merge op of a state, through JSON as a page carries it. */
const mergeOp = (e: Entry, seq: number): Op => ({ origin: 'M', seq, ts: 1, type: 'merge', id: 'r', data: JSON.parse(JSON.stringify(plainEntry(e))) as Record<string, unknown> });

const text = (e: Entry | undefined) => (e ? canonicalJson(plainEntry(e)) : 'none');

describe('counters, purges and merges of prefix states (property)', () => {
  it('GUAR-1 GUAR-2 CLK-2 CLK-3 KIND-4 KIND-7 OPS-9 OPS-10 OPS-12 BOOT-4: three origins\' writes, deletes, sets, incs, adds, removes and purges, with merges of states built from a prefix of each stream, in any per-origin-ordered interleaving with duplicates, give byte-identical entries and digests, equal to the ops alone', () => {
    const perOrigin = fc.array(body, { maxLength: 6 });
    const cut = fc.array(fc.nat({ max: 6 }), { minLength: 3, maxLength: 3 });
    const picks = fc.array(fc.nat(), { maxLength: 60 });
    fc.assert(
      fc.property(fc.tuple(perOrigin, perOrigin, perOrigin), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 3, maxLength: 3 }), fc.array(cut, { maxLength: 3 }), picks, picks, fc.array(fc.nat({ max: 40 }), { maxLength: 4 }), (per, starts, cuts, p1, p2, dups) => {
        const streams = streamsOf(per, starts);
        const states = cuts.map((c) => applyAll(streams.flatMap((s, o) => s.slice(0, c[o])))).filter((e): e is Entry => e !== undefined);
        const withMerges = [...streams, ...states.map((e, i) => [mergeOp(e, i + 1)])];
        const one = applyAll(deliver(streams, p1));
        const results = [applyAll(deliver(withMerges, p1)), applyAll(deliver(withMerges, p2, dups)), applyAsStored(deliver(withMerges, p2, dups)), applyAll(deliver(streams, p2, dups))];
        for (const r of results) expect(text(r)).toBe(text(one));
        if (one) for (const r of results) expect(entryDigest(r as Entry)).toBe(entryDigest(one));
      }),
      { seed: SEED, numRuns: Number(process.env.FC_RUNS ?? 1000) },
    );
  });
});

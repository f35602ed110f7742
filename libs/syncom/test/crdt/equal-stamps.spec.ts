import fc from 'fast-check';
import { applyOp, compareStamps, type Entry, isHidden, joinEntries, joinField, plainEntry, readEntry, stampOfTag } from '../../src/crdt';
import { signOp } from '../../src';
import { internals } from '../../src/testing/internals';
import type { Op, OpType } from '../../src/op/types';
import { node, ship } from '../storage/helpers';
import { shuffled } from './orders';

// Ops stamped alike on purpose: an honest node never stamps two ops with one (ts, origin) (CLK-4), but a
// peer can sign two with its own key, in two of its streams (scopes), and they then arrive in either order.
// Few stamps (ts 1-3, two origins) make most conflicts exact ties. Fields keep one kind (x, y registers,
// s a set) and no incs (RESET-6, RESET-10 are the documented exceptions).
const VALUES = [0, 1, 'a', null, [1], { p: 1, q: 2 }, { q: 2, p: 1 }, { p: 2 }];
const value = fc.constantFrom(...VALUES);
const ts = fc.integer({ min: 1, max: 3 });
const origin = fc.constantFrom('A', 'B');
const data = fc.record({ x: value, y: value }, { requiredKeys: [] });
const element = fc.constantFrom(1, '1', { k: 1 });
const tag = fc.tuple(ts, origin).map(([t, o]) => `${t}:${o}`);

const write = fc.record({ type: fc.constantFrom<OpType>('write', 'delete', 'set'), ts, origin, data, v: fc.constantFrom(undefined, 1, 2) });
const add = fc.record({ type: fc.constant<OpType>('add'), ts, origin, key: fc.constant('s'), value: fc.array(element, { minLength: 1, maxLength: 2 }) });
const remove = fc.record({ type: fc.constant<OpType>('remove'), ts, origin, key: fc.constant('s'), value: fc.array(fc.tuple(element, fc.array(tag, { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 2 }) });

/**
 * An op of record r. A remove names only tags stamped no later than itself (equal included): a node
 * names the adds it saw, all older than its own stamp; one naming a later tag is another matter.
 */
function opOf(d: Partial<Op> & { type: OpType; ts: number; origin: string }, seq: number): Op {
  const op = { ...d, id: 'r', seq } as Op;
  if (op.type === 'delete') delete op.data;
  if (op.type === 'set') delete op.v;
  if (op.type === 'remove') op.value = (op.value as [unknown, string[]][]).map(([x, tags]) => [x, tags.filter((t) => compareStamps(stampOfTag(t), [op.ts, op.origin]) <= 0)]);
  return op;
}

const ops = fc.array(fc.oneof(write, write, add, remove), { minLength: 2, maxLength: 10 }).map((ds) => ds.map((d, i) => opOf(d, i + 1)));

const applyAll = (list: readonly Op[]): Entry | undefined => list.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, undefined);

/** What a node shows of the record, as text: byte-for-byte, so values differing in key order alone differ. */
function view(e: Entry | undefined): string {
  if (!e) return 'none';
  return JSON.stringify({ hidden: isHidden(e), v: e.v ?? null, record: readEntry(e) });
}

/** A merge op carrying the state some of the ops make (a snapshot page's entry). */
function mergeOf(state: Entry | undefined, seq: number): Op[] {
  return state ? [{ origin: 'M', seq, ts: 9, type: 'merge', id: 'r', data: plainEntry(state) as unknown as Record<string, unknown> }] : [];
}

const SEED = 20240611;

describe('equal stamps (a peer signing two ops with one stamp)', () => {
  it('CLK-2 CLK-4 GUAR-1 GUAR-2 OPS-12: ops with equal-stamp conflicts (writes, deletes, sets, adds, removes, merges) in any order, with duplicates, give byte-identical records', () => {
    const keys = fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 12, maxLength: 12 });
    const dups = fc.array(fc.nat({ max: 40 }), { maxLength: 4 });
    fc.assert(
      fc.property(ops, fc.array(fc.nat(), { maxLength: 3 }), keys, keys, dups, (base, picks, k1, k2, d2) => {
        // Merge ops of states made from some of the ops: each joins what applying those ops makes.
        const merges = picks.flatMap((p, i) => mergeOf(applyAll(base.filter((_, j) => (p >> j) & 1)), i + 1));
        const all = [...base, ...merges];
        const one = view(applyAll(shuffled(all, k1, [])));
        const two = view(applyAll(shuffled(all, k2, d2)));
        expect(two).toBe(one);
      }),
      { seed: SEED, numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });

  it('OPS-12 CLK-4: joining entries that hold equal-stamp conflicts is commutative, associative and idempotent, and equals applying every op', () => {
    fc.assert(
      fc.property(ops, ops, ops, (x, y, z) => {
        const [a, b, c] = [x, y, z].map((list) => applyAll(list) as Entry);
        expect(view(joinEntries(a, b))).toBe(view(joinEntries(b, a)));
        expect(view(joinEntries(joinEntries(a, b), c))).toBe(view(joinEntries(a, joinEntries(b, c))));
        expect(view(joinEntries(a, a))).toBe(view(a));
        expect(view(joinEntries(joinEntries(a, b), c))).toBe(view(applyAll([...x, ...y, ...z])));
      }),
      { seed: SEED, numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });

  it('CLK-4: a register tie at one stamp goes to the greater value, by canonical JSON then by key order, in either argument order', () => {
    const r = (val: unknown) => ({ k: 'r' as const, s: [5, 'A'] as const, val });
    for (const [lo, hi] of [[1, 2], ['a', 'b'], [{ p: 1, q: 2 }, { p: 2 }], [{ p: 1, q: 2 }, { q: 2, p: 1 }]] as const) {
      expect(joinField(r(lo), r(hi))).toEqual(r(hi));
      expect(joinField(r(hi), r(lo))).toEqual(r(hi));
      expect(JSON.stringify((joinField(r(lo), r(hi)) as { val: unknown }).val)).toBe(JSON.stringify(hi));
    }
  });

  it('CLK-4 RESET-4: a write and a delete signed with one stamp leave a tombstone whichever lands first; two writes keep the higher meta.v', () => {
    const w: Op = { origin: 'A', seq: 1, ts: 5, type: 'write', id: 'r', data: { x: 1 }, v: 2 };
    const d: Op = { origin: 'A', seq: 1, ts: 5, type: 'delete', id: 'r', scope: 'a' };
    const w3: Op = { ...w, scope: 'a', data: { x: 0 }, v: 3 };
    expect(isHidden(applyAll([w, d]) as Entry)).toBe(true);
    expect(isHidden(applyAll([d, w]) as Entry)).toBe(true);
    expect(view(applyAll([w, w3]))).toBe(view(applyAll([w3, w])));
    expect(applyAll([w, w3])?.v).toBe(3);
  });

  it('CLK-2 CLK-10 GUAR-1 GUAR-2 RESET-4 (end to end): two nodes given a peer\'s two same-stamp ops in its two streams, in opposite orders, hold the same record', async () => {
    const sync = { sync: { signatures: 'require' as const, antiEntropyInterval: 0 } };
    const [n1, n2, peer] = await Promise.all([node(1_000_000, sync), node(1_000_000, sync), node(1_000_000, sync)]);
    const t = internals(peer.s).clock.next();
    const sign = (body: Partial<Op>, scope: string, id: string) =>
      signOp({ origin: peer.s.id, seq: body.seq ?? 1, ts: t, id, ...body, scope } as Op, internals(peer.s).keys.signPrivate);
    const a = sign({ type: 'write', data: { x: 'from stream *' } }, '*', 'r');
    const b = sign({ type: 'write', data: { x: 'from stream a' } }, 'a', 'r');
    const c = sign({ seq: 2, type: 'write', data: { y: 1 } }, '*', 'q');
    const d = sign({ seq: 2, type: 'delete' }, 'a', 'q');
    expect((await ship(peer.s, n1.s, [a, b, c, d])).applied).toBe(4);
    expect((await ship(peer.s, n2.s, [b, a, d, c])).applied).toBe(4);
    // Delivered again (at least once, GUAR-2): duplicates, nothing more to settle it.
    await ship(peer.s, n1.s, [b, a, d, c]);
    await ship(peer.s, n2.s, [a, b, c, d]);
    expect(await n1.s.get('r')).toEqual({ x: 'from stream a' });
    expect(await n2.s.get('r')).toEqual({ x: 'from stream a' });
    expect(await n1.s.has('q')).toBe(false);
    expect(await n2.s.has('q')).toBe(false);
    await Promise.all([n1.s.close(), n2.s.close(), peer.s.close()]);
  });
});

import fc from 'fast-check';
import { applyOp, compareStamps, type Entry, isEntry, joinEntries, plainEntry, raisesPurge, stampOfTag } from '../../src/crdt';
import { heldEntry } from '../../src/crdt/merge';
import { applyPeerOps, type Storage } from '../../src';
import type { MemoryBackend } from '../../src/backend';
import { canonicalJson } from '../../src/op/canonical';
import type { Op, OpType, Stamp } from '../../src/op/types';
import { entryDigest } from '../../src/reconcile/digest';
import { internals } from '../../src/testing/internals';
import { closeAll, hostAndDialer, node } from '../sync/helpers';
import { craft, greet, push, waitFor } from '../sync/scenario-helpers';
import { shuffled } from './orders';

// A purged record's entry is a function of the purge stamps alone: { id, latest: P, purged: P, fields: {} },
// P the newest purge's stamp (docs/guarantees.md, Purge). It was the first purge to arrive's, with the latest
// of whatever came before it, so two nodes holding the same ops differed for good and every reconciliation
// appended a merge op to both logs. Marks without a reset (a merge's v or del) were kept by whichever side
// came first. Few stamps (ts 1-4, three origins) make ties common; fields keep one kind and there are no incs
// (RESET-6 and RESET-10 are the documented exceptions).

const SEED = 20250214;
const ts = fc.integer({ min: 1, max: 4 });
const origin = fc.constantFrom('A', 'B', 'C');
const stamp = fc.tuple(ts, origin) as fc.Arbitrary<Stamp>;
const value = fc.constantFrom(0, 1, 'a', null, { p: 1, q: 2 }, { q: 2, p: 1 });
const data = fc.record({ x: value, y: value }, { requiredKeys: [] });
const element = fc.constantFrom(1, 'e', { k: 1 });
const tag = stamp.map(([t, o]) => `${t}:${o}`);
const version = fc.constantFrom(undefined, 1, 2);

// Purges weighted so that about half the cases end purged (several purges in many) and half live.
const body = fc.oneof(
  { arbitrary: fc.record({ type: fc.constantFrom<OpType>('write', 'set'), data, v: version }), weight: 4 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('delete'), v: version }), weight: 2 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('add'), key: fc.constant('s'), value: fc.array(element, { minLength: 1, maxLength: 2 }) }), weight: 2 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('remove'), key: fc.constant('s'), value: fc.array(fc.tuple(element, fc.array(tag, { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 2 }) }), weight: 2 },
  { arbitrary: fc.record({ type: fc.constant<OpType>('purge') }), weight: 1 },
);

/** An op of record r; a remove names only tags no later than itself (a node names adds it saw). */
function opOf([s, b]: [Stamp, Partial<Op>], seq: number): Op {
  const op = { ...b, origin: s[1], ts: s[0], id: 'r', seq } as Op;
  if (op.type === 'set') delete op.v;
  if (op.type === 'remove') op.value = (op.value as [unknown, string[]][]).map(([x, tags]) => [x, tags.filter((t) => compareStamps(stampOfTag(t), s) <= 0)]);
  return op;
}

const reg = fc.record({ k: fc.constant('r' as const), s: stamp, val: value });
/** What a peer's merge may carry beside what ops make: a purge marker with data, marks with no reset, a member no entry has. */
/** `arb`, or undefined `nil` times as often. */
const sometimes = <T>(arb: fc.Arbitrary<T>, nil: number) => fc.oneof({ arbitrary: fc.constant(undefined), weight: nil }, { arbitrary: arb, weight: 1 });
const stray = fc.record({
  latest: stamp, purged: sometimes(stamp, 3), reset: sometimes(stamp, 1),
  v: version, del: fc.option(fc.constant(true as const), { nil: undefined }), x: fc.option(reg, { nil: undefined }), junk: fc.boolean(),
}).map((e) => {
  const out: Record<string, unknown> = { id: 'r', latest: e.latest, fields: e.x ? { x: e.x } : {} };
  for (const k of ['purged', 'reset', 'v', 'del'] as const) if (e[k] !== undefined) out[k] = e[k];
  if (e.junk) out.junk = 1;
  return out as unknown as Entry;
});

const mergeOp = (e: Entry, seq: number): Op => ({ origin: 'M', seq, ts: 9, type: 'merge', id: 'r', data: JSON.parse(JSON.stringify(plainEntry(e))) as Record<string, unknown> });
const applyAll = (list: readonly Op[]): Entry | undefined => list.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, undefined);

/** As the storage paths do (peer.ts submitOne, bootstrap.ts): a purged record takes a purge, or a merge raising its marker, and nothing else. */
const applyAsStored = (list: readonly Op[]): Entry | undefined =>
  list.reduce<Entry | undefined>((e, op) => (e?.purged && op.type !== 'purge' && !(op.type === 'merge' && raisesPurge(e, op.data as unknown as Entry)) ? e : applyOp(e, op).entry), undefined);

/** An entry's canonical text: byte for byte, member and key order aside (a record file's and the wire's text is its JSON). */
const text = (e: Entry | undefined) => (e ? canonicalJson(plainEntry(e)) : 'none');

/** The newest purge stamp among the ops and the markers the merges carry. */
function newestPurge(all: readonly Op[]): Stamp | undefined {
  let p: Stamp | undefined;
  for (const op of all) {
    const s: Stamp | undefined = op.type === 'purge' ? [op.ts, op.origin] : op.type === 'merge' ? (op.data as unknown as Entry).purged : undefined;
    if (s && (!p || compareStamps(s, p) > 0)) p = s;
  }
  return p;
}

const op = (type: OpType, s: Stamp, more: Partial<Op> = {}): Op => ({ origin: s[1], seq: 1, ts: s[0], type, id: 'x', ...more });

/** One reconciliation of `d` with the hub and its feeds settled: both logs' heads after it. */
async function syncRound(hub: Storage, d: Storage, idle: () => Promise<unknown>): Promise<number[]> {
  await d.sync.forceSync();
  await d.sync.synced(URL, { timeout: 10_000 });
  await idle();
  return [internals(hub).log.head, internals(d).log.head];
}

describe('purge convergence: a purged entry is a function of its purge stamps', () => {
  it('OPS-9 OPS-10 GUAR-1 GUAR-2: two purges and a set in any order, duplicated or not, leave the newer purge\'s marker, latest the marker', () => {
    const p1 = op('purge', [1, 'o1']);
    const p3 = op('purge', [1, 'o3']);
    const s1 = op('set', [1, 'o1'], { seq: 2, data: { a: 1 } });
    const want = { id: 'x', latest: [1, 'o3'], purged: [1, 'o3'], fields: {} };
    for (const order of [[p1, s1, p3], [p3, p1, s1], [p1, p3, s1], [s1, p1, p3, p1], [p3, p3, s1, p1]]) {
      expect(applyAll(order)).toEqual(want);
      expect(JSON.stringify(applyAsStored(order))).toBe(JSON.stringify(want));
    }
  });

  it('OPS-9 CLK-2 GUAR-1: a write stamped after the purge (a slow clock purged) leaves the same entry whether it lands first or second', () => {
    const w = op('write', [200, 'o2'], { data: { a: 1 } });
    const p = op('purge', [100, 'o3']);
    const want = JSON.stringify({ id: 'x', latest: [100, 'o3'], purged: [100, 'o3'], fields: {} });
    expect(JSON.stringify(applyAll([w, p]))).toBe(want);
    expect(JSON.stringify(applyAll([p, w]))).toBe(want);
    expect(JSON.stringify(applyAsStored([p, w]))).toBe(want);
    expect(entryDigest(applyAll([w, p]) as Entry)).toBe(entryDigest(applyAll([p, w]) as Entry));
  });

  it('OPS-10 OPS-11 OPS-12: a merge carrying a newer purge marker raises a purged entry; an older one, or data, lands nothing; a peer\'s marker carrying fields is held as the marker alone', () => {
    const purged = applyAll([op('purge', [5, 'A'])]) as Entry;
    const withData = { id: 'x', latest: [9, 'B'], purged: [7, 'B'], reset: [3, 'B'], v: 2, fields: { a: { k: 'r', s: [8, 'B'], val: 'SECRET' } } } as unknown as Entry;
    expect(isEntry(withData, 'x')).toBe(true);
    const want = { id: 'x', latest: [7, 'B'], purged: [7, 'B'], fields: {} };
    expect(raisesPurge(purged, withData)).toBe(true);
    expect(applyOp(purged, { ...op('merge', [1, 'M']), data: withData as never }).entry).toEqual(want);
    expect(heldEntry(withData)).toEqual(want);
    expect(joinEntries(purged, withData)).toEqual(want);
    expect(joinEntries(withData, purged)).toEqual(want);
    const older = { id: 'x', latest: [9, 'C'], purged: [4, 'C'], fields: {} } as unknown as Entry;
    expect(raisesPurge(purged, older)).toBe(false);
    expect(applyOp(purged, { ...op('merge', [1, 'M']), data: older as never }).entry).toEqual(purged);
    const live = { id: 'x', latest: [9, 'C'], fields: { a: { k: 'r', s: [9, 'C'], val: 1 } } } as unknown as Entry;
    expect(raisesPurge(purged, live)).toBe(false);
    expect(applyOp(purged, { ...op('merge', [1, 'M']), data: live as never }).entry).toEqual(purged);
  });

  it('OPS-17 GUAR-1: marks without a reset (a merge\'s meta.v or del) are dropped, so a record built by sets holds none whichever lands first', () => {
    const set = op('set', [5, 'A'], { data: { a: 1 } });
    const merge = { ...op('merge', [1, 'M']), data: { id: 'x', latest: [2, 'M'], fields: {}, v: 7, del: true } as never };
    const one = applyAll([set, merge]) as Entry;
    const two = applyAll([merge, set]) as Entry;
    expect(JSON.stringify(one)).toBe(JSON.stringify(two));
    expect(one).toEqual({ id: 'x', latest: [5, 'A'], fields: { a: { k: 'r', s: [5, 'A'], val: 1 } } });
    // With a reset, the marks stay: they are the write's (OPS-17).
    const w = applyAll([op('write', [6, 'B'], { data: {}, v: 3 }), merge]) as Entry;
    expect(w.v).toBe(3);
    expect(heldEntry({ id: 'x', latest: [2, 'M'], fields: {}, v: 7, junk: 1 } as unknown as Entry)).toEqual({ id: 'x', latest: [2, 'M'], fields: {} });
  });

  it('CLK-2 GUAR-1 GUAR-2 OPS-9 OPS-10 OPS-12 OPS-17 (property): ops with several purges, writes, sets, adds and removes before and after them, and merges carrying purge markers and marks without a reset, in any order with duplicates, give byte-identical entries and equal digests', () => {
    const keys = fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 16, maxLength: 16 });
    const dups = fc.array(fc.nat({ max: 40 }), { maxLength: 4 });
    const ops = fc.array(fc.tuple(stamp, body), { minLength: 2, maxLength: 10 }).map((list) => list.map((x, i) => opOf(x as [Stamp, Partial<Op>], i + 1)));
    fc.assert(
      fc.property(ops, fc.array(fc.nat(), { maxLength: 3 }), fc.array(stray, { maxLength: 3 }), keys, keys, dups, (base, picks, strays, k1, k2, d2) => {
        // Merges of states some of the ops make (a snapshot page's entries), and a peer's odd entries.
        const states = picks.map((p) => applyAll(base.filter((_, j) => (p >> j) & 1))).filter((e): e is Entry => e !== undefined);
        const merges = [...states, ...strays].map((e, i) => mergeOp(e, i + 1));
        const all = [...base, ...merges];
        const one = applyAll(shuffled(all, k1, []));
        const results = [one, applyAll(shuffled(all, k2, d2)), applyAsStored(shuffled(all, k2, d2)), applyAsStored(shuffled(all, k1, d2))];
        for (const r of results) expect(text(r)).toBe(text(one));
        if (one) for (const r of results) expect(entryDigest(r as Entry)).toBe(entryDigest(one));
        const p = newestPurge(all);
        if (p) for (const r of results) expect(JSON.stringify(r)).toBe(JSON.stringify({ id: 'r', latest: p, purged: p, fields: {} }));
      }),
      { seed: SEED, numRuns: Number(process.env.FC_RUNS ?? 600) },
    );
  });

  it('OPS-12 GUAR-1 (property): joining a peer\'s entries (purge markers with data, marks with no reset) is commutative, associative and idempotent to the byte, and merge ops of them land alike in either order', () => {
    fc.assert(
      fc.property(stray, stray, stray, (x, y, z) => {
        const [a, b, c] = [x, y, z].map(heldEntry);
        expect(text(joinEntries(a, b))).toBe(text(joinEntries(b, a)));
        expect(text(joinEntries(joinEntries(a, b), c))).toBe(text(joinEntries(a, joinEntries(b, c))));
        expect(text(joinEntries(a, a))).toBe(text(a));
        expect(text(applyAll([mergeOp(x, 1), mergeOp(y, 2)]))).toBe(text(applyAll([mergeOp(y, 2), mergeOp(x, 1)])));
        expect(entryDigest(joinEntries(a, b))).toBe(entryDigest(joinEntries(b, a)));
      }),
      { seed: SEED, numRuns: Number(process.env.FC_RUNS ?? 600) },
    );
  });
});

const URL = 'memory://h';
const SECRET = 'PURGE-CONVERGE-7f3a';

/** Files of a storage's backend whose text holds the string. */
function holding(s: Storage, needle: string): string[] {
  return [...(internals(s).backend as MemoryBackend).files()].filter(([, content]) => content.includes(needle)).map(([path]) => path);
}

describe('purge convergence end to end', () => {
  it('GUAR-1 CLK-2 OPS-9 OPS-10 OPS-11 (end to end): concurrent purges and a later write, taken in opposite orders by a hub and a dialer, hold one entry; a second reconciliation appends nothing to either log, and no file keeps the write', async () => {
    const { h, d } = await hostAndDialer(URL);
    const [p1, p2, p3] = await Promise.all([node(), node(), node()]);
    const ids = ['x0', 'x1', 'x2'];
    const early = ids.map((id, i) => craft(p3, { type: 'purge', id }, undefined as never, i + 1));
    internals(p1).clock.observe(early[2].ts + 5);
    const late = ids.map((id, i) => craft(p1, { type: 'purge', id }, undefined as never, i + 1));
    internals(p2).clock.observe(late[2].ts + 5);
    const writes = ids.map((id, i) => craft(p2, { type: 'write', id, data: { secret: SECRET } }, undefined as never, i + 1));
    await push(h.unit, await greet(h.unit, p3), early);
    await push(h.unit, await greet(h.unit, p1), late);
    await push(h.unit, await greet(h.unit, p2), writes);
    const via = { url: 'elsewhere', node: 'z' };
    for (const page of [writes, late, early]) await applyPeerOps(d, page, { via });
    const idle = () => Promise.all([internals(d).committer.idle(), internals(h.s).committer.idle()]);
    await idle();
    const entries = (s: Storage) => ids.map((id) => JSON.stringify(internals(s).committer.committed.get(id)));
    expect(entries(d)).toEqual(entries(h.s));
    expect(JSON.parse(entries(d)[0])).toEqual({ id: 'x0', latest: [late[0].ts, p1.id], purged: [late[0].ts, p1.id], fields: {} });

    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.subscribed === true && !d.sync.peers()[0].bootstrapping, [d]);
    const first = await syncRound(h.s, d, idle);
    expect(await syncRound(h.s, d, idle)).toEqual(first);
    expect(entries(d)).toEqual(entries(h.s));
    for (const id of ids) expect(entryDigest(internals(d).committer.committed.get(id) as Entry)).toBe(entryDigest(internals(h.s).committer.committed.get(id) as Entry));
    expect(holding(d, SECRET)).toEqual([]);
    expect(holding(h.s, SECRET)).toEqual([]);
    await closeAll(h.s, d, p1, p2, p3);
  });
  it('GUAR-1 OPS-9 OPS-10 OPS-12 (end to end): purges learned only as markers (each node\'s beforeApply declines the other\'s purge op) converge on the newer marker, raised by a merge at the hub and by a reconciliation join at the dialer; a second reconciliation appends nothing', async () => {
    const noPurge = { hooks: { beforeApply: ({ op: o }: { op: Op }) => o.type !== 'purge' } };
    const { h, d } = await hostAndDialer(URL, { hub: { sync: noPurge }, dialer: { sync: noPurge } });
    const marker = (s: Storage, id: string) => internals(s).committer.committed.get(id)?.purged as Stamp;
    // x: the dialer's purge is the newer (the hub raises on the dialer's merge); y: the hub's is (the dialer raises on the join).
    await h.s.purge('x');
    internals(d).clock.observe(marker(h.s, 'x')[0] + 5);
    await d.purge('x');
    await d.purge('y');
    internals(h.s).clock.observe(marker(d, 'y')[0] + 5);
    await h.s.purge('y');
    const idle = () => Promise.all([internals(d).committer.idle(), internals(h.s).committer.idle()]);
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.subscribed === true && !d.sync.peers()[0].bootstrapping, [d]);
    const first = await syncRound(h.s, d, idle);
    expect(await syncRound(h.s, d, idle)).toEqual(first);
    const want = { x: marker(d, 'x'), y: marker(h.s, 'y') };
    for (const s of [h.s, d]) {
      for (const id of ['x', 'y'] as const) expect(internals(s).committer.committed.get(id)).toEqual({ id, latest: want[id], purged: want[id], fields: {} });
    }
    await closeAll(h.s, d);
  });
});

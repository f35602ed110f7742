import fc from 'fast-check';
import { applyOp, type Entry, entryDelta, heldEntry, joinEntries, readEntry, SortedMap } from '../../src/crdt';
import { TagSet } from '../../src/crdt/tags';
import type { Op } from '../../src/op/types';
import { entryDigest } from '../../src/reconcile';
import { deliver } from './interleave';
import { applyAll, build, history, plain } from './large-history';

const RUNS = Number(process.env.FC_RUNS ?? 150);

/** `part` as a record file gives it back: through JSON, held as a loaded entry is. */
const loaded = (e: Entry) => heldEntry(plain(e));

describe('entryDelta: the part of an entry a batch added (property)', () => {
  const order = fc.array(fc.nat(), { minLength: 40, maxLength: 120 });
  const cuts = fc.array(fc.nat(), { minLength: 1, maxLength: 6 });

  it('GUAR-1 GUAR-7 KIND-3 KIND-5 KIND-6 RESET-1: joined with the entry it was cut from, a part gives the entry back (read and digest), in memory and through JSON, at any cut of any history', () => {
    fc.assert(
      fc.property(history, order, cuts, (per, picks, at) => {
        const ops = deliver(build(per), picks);
        // Cut points in op order: each part is taken from the state at the previous cut.
        const marks = [...new Set(at.map((x) => x % (ops.length + 1)))].sort((a, b) => a - b);
        let before: Entry | undefined;
        let done = 0;
        for (const mark of [...marks, ops.length]) {
          const after = applyAll(ops.slice(done, mark), before);
          done = mark;
          if (!before || !after) {
            before = after;
            continue;
          }
          const part = entryDelta(before, after);
          if (part) {
            for (const joined of [joinEntries(before, part), joinEntries(part, before), joinEntries(loaded(before), loaded(part))]) {
              expect(readEntry(joined)).toEqual(readEntry(after));
              expect(entryDigest(joined)).toBe(entryDigest(after));
            }
          }
          before = after;
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('GUAR-7: a part taken after a join with another replica joins back to the joined state', () => {
    const split = fc.tuple(fc.nat(), fc.nat(), fc.nat());
    fc.assert(
      fc.property(history, order, split, (per, picks, cut) => {
        const streams = build(per);
        const mine = applyAll(deliver(streams.map((s, i) => s.slice(0, cut[i] % (s.length + 1))), picks));
        const theirs = applyAll(deliver(streams, picks));
        if (!mine || !theirs) return;
        const after = joinEntries(mine, theirs);
        const part = entryDelta(mine, after);
        if (!part) return;
        expect(entryDigest(joinEntries(loaded(mine), loaded(part)))).toBe(entryDigest(after));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('entryDelta on large maps', () => {
  const op = (seq: number, body: Partial<Op>): Op => ({ origin: 'A', seq, ts: seq, id: 'r', ...body }) as Op;
  const big = applyOp(undefined, op(1, { type: 'add', key: 'tags', value: Array.from({ length: 100_000 }, (_, i) => `x${i}`) })).entry;

  it('GUAR-7: one add to a set of 100,000 elements gives a part of that one element; a write after it a part of its reset and fields', () => {
    const after = applyOp(big, op(2, { type: 'add', key: 'tags', value: ['y'] })).entry;
    const part = entryDelta(big, after) as Entry;
    expect(plain(part)).toEqual({ id: 'r', latest: [2, 'A'], fields: { tags: { k: 's', el: { '"y"': { add: ['2:A'], rem: [] } } } } });
    const reset = applyOp(after, op(3, { type: 'write', data: { t: 1 } })).entry;
    const cut = entryDelta(after, reset) as Entry;
    expect(cut.reset).toEqual([3, 'A']);
    expect(entryDigest(joinEntries(after, cut))).toBe(entryDigest(reset));
  });

  it('GUAR-7: maps built apart (nothing shared) give no part; the tags of an element added many times give the tags added', () => {
    const rebuilt = heldEntry(plain(big));
    expect(rebuilt.fields).not.toBe(big.fields);
    const after = applyOp(rebuilt, op(2, { type: 'add', key: 'tags', value: ['y'] })).entry;
    expect(entryDelta(big, after)).toBeUndefined();
    let e = big;
    for (let i = 2; i < 60; i++) e = applyOp(e, op(i, { type: 'add', key: 'tags', value: ['x1'] })).entry;
    const tagged = applyOp(e, op(60, { type: 'add', key: 'tags', value: ['x1'] })).entry;
    const part = entryDelta(e, tagged) as Entry;
    expect(plain(part).fields).toEqual({ tags: { k: 's', el: { '"x1"': { add: ['60:A'], rem: [] } } } });
    const field = (tagged.fields as Record<string, { el: SortedMap<{ add: unknown }> }>).tags;
    expect(field.el.get('"x1"')?.add).toBeInstanceOf(TagSet);
  });
});

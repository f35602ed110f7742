import fc from 'fast-check';
import { applyOp, compareStamps, contentStamp, type Entry, entriesText, type Field, joinEntries, keyedGet, readEntry, SortedMap, stampOfTag } from '../../src/crdt';
import { SMALL } from '../../src/crdt/keyed';
import { prunedFields } from '../../src/crdt/merge';
import { deliver } from './interleave';
import { applyAll, build, history, plain } from './large-history';
import type { Op, Stamp } from '../../src/op/types';
import { entryDigest } from '../../src/reconcile';

const RUNS = Number(process.env.FC_RUNS ?? 200);

describe('SortedMap (model-based)', () => {
  it('reads as a Map written the same way, in key order, and set() leaves every earlier version as it was', () => {
    const step = fc.tuple(fc.string({ maxLength: 4 }), fc.integer());
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400 }), (steps) => {
        const model = new Map<string, number>();
        let map = SortedMap.ofSorted<number>([]);
        const versions: [SortedMap<number>, [string, number][]][] = [];
        for (const [k, v] of steps) {
          versions.push([map, [...model].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))]);
          map = map.set(k, v);
          model.set(k, v);
          expect(map.get(k)).toBe(v);
        }
        const sorted = [...model].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        expect(map.entries()).toEqual(sorted);
        expect(map.size).toBe(model.size);
        expect(SortedMap.ofSorted(sorted).entries()).toEqual(sorted);
        for (const [old, had] of versions) expect(old.entries()).toEqual(had);
        for (const [k, v] of sorted) expect(map.get(k)).toBe(v);
        expect(map.get('\u{10ffff}missing')).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it('delete() and the least measure read as a Map would, and a visit of the entries older than a bound finds exactly those', () => {
    const step = fc.tuple(fc.boolean(), fc.string({ maxLength: 3 }), fc.integer({ min: 0, max: 1000 }));
    const m = { of: (_k: string, v: number) => v, older: (a: number, b: number) => a < b, cache: new WeakMap<object, number | null>() };
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), fc.integer({ min: 0, max: 1001 }), (steps, bound) => {
        const model = new Map<string, number>();
        let map = SortedMap.ofSorted<number>([]);
        for (const [del, k, v] of steps) {
          const before = map;
          if (del) { map = map.delete(k); model.delete(k); } else { map = map.set(k, v); model.set(k, v); }
          if (del && !before.entries().some(([x]) => x === k)) expect(map).toBe(before);
          const least = model.size === 0 ? null : Math.min(...model.values());
          expect(map.least(m)).toBe(least);
        }
        const sorted = [...model].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        expect(map.entries()).toEqual(sorted);
        expect(map.size).toBe(model.size);
        const seen: [string, number][] = [];
        map.visitOlder(bound, m, (k, v) => seen.push([k, v]));
        expect(seen).toEqual(sorted.filter(([, v]) => v < bound));
      }),
      { numRuns: RUNS },
    );
  });

  it('is written by JSON as a plain object, a __proto__ key as a key', () => {
    const m = SortedMap.ofSorted<number>([]).set('b', 2).set('__proto__', 1).set('a', 0);
    expect(JSON.parse(JSON.stringify(m))).toEqual(JSON.parse('{"__proto__":1,"a":0,"b":2}'));
    expect(m.get('toString')).toBeUndefined();
  });
});

describe(`fields past ${SMALL} keys (property)`, () => {
  const order = fc.array(fc.nat(), { minLength: 40, maxLength: 120 });

  it('GUAR-1 GUAR-2 KIND-3 KIND-5 KIND-7 KIND-8: records of many fields, set elements and counter slots read and digest alike in any per-origin order', () => {
    fc.assert(
      fc.property(history, order, order, (per, p1, p2) => {
        const streams = build(per);
        const one = applyAll(deliver(streams, p1));
        const two = applyAll(deliver(streams, p2));
        if (!one) return;
        expect(readEntry(two)).toEqual(readEntry(one));
        expect(entryDigest(two)).toBe(entryDigest(one));
        // The form a map is held in is not part of the state: the wire's plain copy reads and digests alike.
        expect(readEntry(plain(one))).toEqual(readEntry(one));
        expect(entryDigest(plain(one))).toBe(entryDigest(one));
        // A record file's text, joined from kept texts of the maps' leaves, is the entry's JSON but for member order.
        expect(JSON.parse(entriesText([one, two]))).toEqual([plain(one), plain(two)]);
      }),
      { numRuns: RUNS },
    );
  });

  it('BOOT-7: joining two replicas that each took a prefix of every stream gives the state of one that took the longer prefixes, whichever form each holds', () => {
    const cuts = fc.tuple(fc.nat(), fc.nat(), fc.nat());
    fc.assert(
      fc.property(history, order, cuts, cuts, (per, p1, ca, cb) => {
        const streams = build(per);
        const upTo = (cut: number[]) => deliver(streams.map((s, i) => s.slice(0, s.length === 0 ? 0 : cut[i] % (s.length + 1))), p1);
        const left = applyAll(upTo(ca));
        const right = applyAll(upTo(cb));
        const all = applyAll(upTo(streams.map((s, i) => Math.max(ca[i] % (s.length + 1), cb[i] % (s.length + 1)))));
        if (!left || !right) return;
        for (const joined of [joinEntries(left, right), joinEntries(right, left), joinEntries(plain(left), right), joinEntries(left, plain(right))]) {
          expect(readEntry(joined)).toEqual(readEntry(all));
          expect(entryDigest(joined)).toBe(entryDigest(all));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('RESET-1 RESET-3: a reset prunes a large map through the stamps its nodes keep to what a walk of its plain copy keeps, at any stamp', () => {
    const stamp = fc.tuple(fc.integer({ min: 0, max: 3100 }), fc.constantFrom('A', 'B', 'C', 'AA', ''));
    fc.assert(
      fc.property(history, order, fc.array(stamp, { minLength: 1, maxLength: 4 }), (per, p1, resets) => {
        const one = applyAll(deliver(build(per), p1));
        if (!one) return;
        for (const [ts, origin] of resets) {
          const reset: [number, string] = [ts, origin || 'A'];
          const sorted = { id: 'r', latest: one.latest, fields: prunedFields(one.fields, reset) } as Entry;
          const walked = { id: 'r', latest: one.latest, fields: prunedFields(plain(one).fields, reset) } as Entry;
          expect(readEntry(sorted)).toEqual(readEntry(walked));
          expect(entryDigest(sorted)).toBe(entryDigest(walked));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('RESET-10: the newest stamp a field holds, kept in a large map\'s and a tag set\'s nodes, is what a walk of its plain copy finds, at every step of a history', () => {
    const walk = (f: Field): Stamp => {
      const all: Stamp[] = [[0, '']];
      if (f.k === 'r') return f.s;
      if (f.k === 'c') for (const [key, slot] of Object.entries(f.by as Record<string, [number, number]>)) all.push([slot[1], key.split('@')[0]]);
      else for (const e of Object.values(f.el as Record<string, { add: string[]; rem: string[] }>)) for (const t of [...e.add, ...e.rem]) all.push(stampOfTag(t));
      return all.reduce((a, b) => (compareStamps(b, a) > 0 ? b : a));
    };
    fc.assert(
      fc.property(history, order, (per, p1) => {
        let e: Entry | undefined;
        for (const op of deliver(build(per), p1)) {
          e = applyOp(e, op).entry;
          const copy = plain(e);
          for (const name of ['tags', 'n']) {
            const f = keyedGet(e.fields, name);
            if (f) expect(contentStamp(f)).toEqual(walk(keyedGet(copy.fields, name) as Field));
          }
        }
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });

  it('RESET-1 RESET-3: a reset drops what a large set and counter hold stamped at its own ts by a smaller origin, and keeps what is newer, whichever arrives first', () => {
    const at = (origin: string, seq: number, ts: number, body: Partial<Op>) => ({ origin, seq, ts, id: 'r', ...body }) as Op;
    const many = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const older = [at('A', 1, 5, { type: 'add', key: 'tags', value: many(40, 'a') }), ...many(40, 's').map((sc, i) => at('A', 2 + i, 5, { type: 'inc', key: 'n', value: 1, scope: sc }))];
    const newer = [at('C', 1, 6, { type: 'add', key: 'tags', value: ['c'] })];
    for (const reset of [at('B', 1, 5, { type: 'write', data: { t: 1 } }), at('B', 1, 5, { type: 'delete' })]) {
      const first = applyAll([...older, ...newer, reset]);
      const last = applyAll([reset, ...older, ...newer]);
      expect(readEntry(first)).toEqual(readEntry(last));
      expect(entryDigest(first)).toBe(entryDigest(last));
      expect(readEntry(first).tags).toEqual(['c']);
      expect(readEntry(first).n).toBeUndefined();
    }
  });

  it('an op on a set of 100,000 elements leaves the entry before it as it was, and the new one shares the rest', () => {
    const big = Array.from({ length: 100_000 }, (_, i) => `x${i}`);
    const before = applyOp(undefined, { origin: 'A', seq: 1, ts: 1, id: 'r', type: 'add', key: 'tags', value: big } as Op).entry;
    const after = applyOp(before, { origin: 'A', seq: 2, ts: 2, id: 'r', type: 'add', key: 'tags', value: ['y'] } as Op).entry;
    const el = (e: Entry) => { const f = keyedGet(e.fields, 'tags'); return f?.k === 's' ? f.el : undefined; };
    expect(el(before)).toBeInstanceOf(SortedMap);
    expect(keyedGet(el(before)!, '"y"')).toBeUndefined();
    expect(keyedGet(el(after)!, '"y"')).toEqual({ add: ['2:A'], rem: [] });
    expect((readEntry(after).tags as unknown[]).length).toBe(100_001);
    expect(JSON.parse(entriesText([before]))).toEqual([plain(before)]);
    expect(JSON.parse(entriesText([after]))).toEqual([plain(after)]);
  });
});

import fc from 'fast-check';
import { applyOp, type Entry } from '../../src/crdt';
import type { Op } from '../../src/op/types';

/**
 * Histories of ops on one record 'r' from three origins that grow its maps
 * past 32 keys (fields, set elements, counter slots, an element's tags):
 * what test/crdt/large-fields.spec.ts and entry-delta.spec.ts run.
 */
const ORIGINS = ['A', 'B', 'C'];
const text = fc.integer({ min: 0, max: 199 }).map((i) => `e${i}`);
const name = fc.integer({ min: 0, max: 99 }).map((i) => `f${i}`);

/** One op drafted: its kind, ts, the element or field names it carries, the scope of an inc. */
interface Draft { kind: 'add' | 'set' | 'inc' | 'write' | 'remove'; ts: number; names: string[]; scope: number }

const draft: fc.Arbitrary<Draft> = fc.record({
  kind: fc.constantFrom<Draft['kind']>('add', 'add', 'set', 'inc', 'write', 'remove'),
  ts: fc.integer({ min: 1, max: 3000 }),
  names: fc.array(fc.oneof(text, name), { minLength: 1, maxLength: 40 }),
  scope: fc.integer({ min: 0, max: 60 }),
});
// Two elements added again and again: their tag lists pass 32 (a TagSet), and removes name many of the tags.
const readded: fc.Arbitrary<Draft> = fc.record({
  kind: fc.constantFrom<Draft['kind']>('add', 'add', 'add', 'add', 'add', 'add', 'remove', 'write'),
  ts: fc.integer({ min: 1, max: 3000 }),
  names: fc.array(fc.constantFrom('e0', 'e1'), { minLength: 1, maxLength: 2 }),
  scope: fc.constant(0),
});

// Writes stamp below 1000 and incs above it, which leaves out the counter incremented on both sides of a
// concurrent reset (RESET-6), as the convergence property does.
const tsOf = (d: Draft) => (d.kind === 'write' ? 1 + (d.ts % 999) : d.kind === 'inc' ? 1000 + d.ts : d.ts);

/** Each origin's ops on record r in ts order; removes name (up to 40) tags of adds stamped before them; incs land in many scopes (one slot each). */
export function build(per: Draft[][]): Op[][] {
  const streams = per.map((drafts, o) => {
    const seen = new Set<number>();
    const sorted = drafts.map((d) => ({ ...d, ts: tsOf(d) })).filter((d) => !seen.has(d.ts) && seen.add(d.ts)).sort((x, y) => x.ts - y.ts);
    return sorted.map((d, i): Op => {
      const base = { origin: ORIGINS[o], seq: i + 1, ts: d.ts, id: 'r' } as Op;
      if (d.kind === 'add') return { ...base, type: 'add', key: 'tags', value: d.names };
      if (d.kind === 'inc') return { ...base, type: 'inc', key: 'n', value: d.names.length, scope: `s${d.scope}` };
      if (d.kind === 'remove') return { ...base, type: 'remove', key: 'tags', value: [] };
      return { ...base, type: d.kind, data: Object.fromEntries(d.names.map((x, j) => [x.replace('e', 'g'), j])) };
    });
  });
  const adds = streams.flat().filter((op) => op.type === 'add');
  for (const op of streams.flat()) {
    if (op.type !== 'remove') continue;
    op.value = adds.filter((a) => a.ts < op.ts).slice(-40).flatMap((a) => (a.value as string[]).slice(0, 3).map((x) => [x, [`${a.ts}:${a.origin}`]]));
  }
  return streams;
}

export const applyAll = (ops: Op[], from?: Entry) => ops.reduce<Entry | undefined>((e, op) => applyOp(e, op).entry, from) as Entry;
export const plain = (e: Entry) => JSON.parse(JSON.stringify(e)) as Entry;

/** Three origins' drafts: many kinds of op, or two elements added again and again. */
export const history = (() => {
  const histories = (d: fc.Arbitrary<Draft>, min: number, max: number) => {
    const one = fc.array(d, { minLength: min, maxLength: max });
    return fc.tuple(one, one, one);
  };
  return fc.oneof(histories(draft, 0, 14), histories(readded, 30, 40));
})();

import fc from 'fast-check';
import { type IdList, ServedIds, type ServedSource } from '../../src/sync/host/sorted-ids';

const RUNS = Number(process.env.FC_RUNS ?? 100);

/** A storage as ServedIds reads it: records and their scopes, sealed ids, and a commit that tells each id it touched. */
function source(initial: string[], scopeOf: (id: string) => string = () => '*') {
  const records = new Map<string, unknown>(initial.map((id) => [id, {}]));
  const scopes = new Map<string, string>(initial.map((id) => [id, scopeOf(id)]));
  const sealed = new Set<string>();
  const listeners: ((op: { id: string }) => void)[] = [];
  const s: ServedSource = {
    records,
    scoped: true,
    scopeOf: (id) => scopes.get(id) ?? '*',
    isSealed: (id) => sealed.has(id),
    onChange: (l) => (listeners.push(l), () => {}),
  };
  const commit = (id: string, seal: boolean, scope = scopeOf(id)) => {
    records.set(id, {});
    scopes.set(id, scope);
    if (seal) sealed.add(id);
    for (const l of listeners) l({ id });
  };
  /** What a paging of `of` serves: the unsealed ids of those scopes and of '*', sorted. */
  const served = (of: readonly string[] = ['*']) =>
    [...records.keys()].filter((id) => !sealed.has(id) && (of.includes('*') || of.includes(s.scopeOf(id)) || s.scopeOf(id) === '*')).sort();
  return { s, commit, served };
}

const read = (list: IdList) => Array.from({ length: list.length }, (_, i) => list.at(i));

describe('ServedIds (model-based): the ids a paging of every scope serves', () => {
  it('PROTO-7 BOOT-2 GUAR-19: each version taken reads as the sorted unsealed ids of its moment, and stays so while commits add and seal ids', () => {
    // Ids from a small space (so commits hit ids held before) and a large one (so chunks split past 1,024).
    const id = fc.oneof(fc.integer({ min: 0, max: 50 }).map((n) => `a${n}`), fc.integer({ min: 0, max: 4000 }).map((n) => `r${n}`));
    const step = fc.oneof(
      { weight: 8, arbitrary: fc.tuple(fc.constant<'commit'>('commit'), id, fc.integer({ min: 0, max: 9 }).map((n) => n === 0)) },
      { weight: 1, arbitrary: fc.tuple(fc.constant<'take'>('take'), fc.constant(''), fc.constant(false)) },
      { weight: 1, arbitrary: fc.tuple(fc.constant<'many'>('many'), fc.integer({ min: 0, max: 3000 }).map(String), fc.constant(false)) },
    );
    fc.assert(
      fc.property(fc.array(id, { maxLength: 200 }), fc.array(step, { maxLength: 120 }), (initial, steps) => {
        const { s, commit, served } = source(initial);
        const ids = new ServedIds(s);
        const taken: [IdList, string[]][] = [[ids.current(), served()]];
        for (const [kind, x, seal] of steps) {
          if (kind === 'commit') commit(x, seal);
          else if (kind === 'many') for (let i = 0; i < 1500; i++) commit(`m${x}-${i}`, false);
          else taken.push([ids.current(), served()]);
        }
        taken.push([ids.current(), served()]);
        for (const [list, want] of taken) {
          expect(list.length).toBe(want.length);
          expect(read(list)).toEqual(want);
        }
        expect(ids.current().at(-1)).toBeUndefined();
        expect(ids.current().at(ids.current().length)).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it('PROTO-7 GUAR-19: ids committed again, each chunk\'s first among them, stay once; sealing one takes it out', () => {
    const { s, commit, served } = source([]);
    const ids = new ServedIds(s);
    for (let i = 0; i < 3000; i++) commit(`r${String(i).padStart(5, '0')}`, false);
    const before = ids.current();
    // Every id again (the first of each chunk included), then every 97th sealed.
    for (let i = 0; i < 3000; i++) commit(`r${String(i).padStart(5, '0')}`, false);
    for (let i = 0; i < 3000; i += 97) commit(`r${String(i).padStart(5, '0')}`, true);
    expect(read(ids.current())).toEqual(served());
    expect(read(before)).toHaveLength(3000);
  });

  it('PROTO-7 SCOPE-3 GUAR-19: a version of some scopes reads as the sorted unsealed ids of those scopes and of \'*\' at its moment, in any order of positions, while commits add, move and seal ids', () => {
    const scope = fc.constantFrom('A', 'B', 'C', '*');
    const id = fc.oneof(fc.integer({ min: 0, max: 60 }).map((n) => `a${n}`), fc.integer({ min: 0, max: 3000 }).map((n) => `r${n}`));
    const step = fc.oneof(
      { weight: 8, arbitrary: fc.record({ kind: fc.constant<'commit'>('commit'), id, scope, seal: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant<'take'>('take'), of: fc.subarray(['A', 'B', 'C', '*', 'D'], { minLength: 1 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant<'many'>('many'), x: fc.integer({ min: 0, max: 3000 }), scope }) },
    );
    // Positions read: in order, then again from scattered places (back to marks passed, forward from them).
    const reads = fc.array(fc.nat(), { maxLength: 40 });
    fc.assert(
      fc.property(fc.array(fc.tuple(id, scope), { maxLength: 300 }), fc.array(step, { maxLength: 80 }), reads, (initial, steps, order) => {
        const first = new Map(initial);
        const { s, commit, served } = source([...first.keys()], (x) => first.get(x) ?? '*');
        const ids = new ServedIds(s);
        const taken: [IdList, string[]][] = [[ids.of(['A']), served(['A'])]];
        for (const st of steps) {
          if (st.kind === 'commit') commit(st.id, st.seal, st.scope);
          else if (st.kind === 'many') for (let i = 0; i < 1200; i++) commit(`m${st.x}-${i}`, false, st.scope);
          else taken.push([ids.of(st.of), served(st.of)]);
        }
        taken.push([ids.of(['B', 'C']), served(['B', 'C'])]);
        for (const [list, want] of taken) {
          expect(list.length).toBe(want.length);
          expect(read(list)).toEqual(want);
          for (const n of order) {
            const i = want.length === 0 ? n : n % (want.length + 1);
            expect(list.at(i)).toBe(want[i]);
          }
          expect(read(list)).toEqual(want);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('PROTO-7 SCOPE-3: a union read back and forth across many marks gives each position\'s id, and a store without scopes serves every id to any scopes', () => {
    const scopeOf = (x: string) => ['A', 'B', '*'][Number(x.slice(1)) % 3];
    const { s, commit, served } = source([], scopeOf);
    const ids = new ServedIds(s);
    for (let i = 0; i < 5000; i++) commit(`r${String((i * 7919) % 5000).padStart(4, '0')}`, false);
    const list = ids.of(['A', 'B']);
    const want = served(['A', 'B']);
    expect(list.length).toBe(5000);
    for (const i of [4999, 0, 2500, 2499, 63, 64, 65, 4000, 128, 3000, 3001, 1]) expect(list.at(i)).toBe(want[i]);
    expect(read(list)).toEqual(want);
    expect(read(ids.of(['A']))).toEqual(served(['A']));
    const plain = source(['b', 'a']);
    expect(read(new ServedIds({ ...plain.s, scoped: false }).of(['A']))).toEqual(['a', 'b']);
  });
});

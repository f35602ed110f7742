import fc from 'fast-check';
import { type IdList, ServedIds, type ServedSource } from '../../src/sync/host/sorted-ids';

const RUNS = Number(process.env.FC_RUNS ?? 100);

/** A storage as ServedIds reads it: records, sealed ids, and a commit that tells each id it touched. */
function source(initial: string[]) {
  const records = new Map<string, unknown>(initial.map((id) => [id, {}]));
  const sealed = new Set<string>();
  const listeners: ((op: { id: string }) => void)[] = [];
  const s: ServedSource = { records, isSealed: (id) => sealed.has(id), onChange: (l) => (listeners.push(l), () => {}) };
  const commit = (id: string, seal: boolean) => {
    records.set(id, {});
    if (seal) sealed.add(id);
    for (const l of listeners) l({ id });
  };
  const served = () => [...records.keys()].filter((id) => !sealed.has(id)).sort();
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
});

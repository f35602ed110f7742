import fc from 'fast-check';
import { isHidden } from '../../src/crdt';
import { internals } from '../../src/testing/internals';
import type { Storage } from '../../src';
import { node } from './helpers';

const RUNS = Number(process.env.FC_RUNS ?? 40);

/** list() as it is defined: the shown records (not deleted or purged) in id order, of one scope, after an id, at most `limit`. */
function naive(s: Storage, o: { scope?: string; limit?: number; after?: string }): string[] {
  const committed = internals(s).committer.committed;
  const ids = [...committed.keys()].sort().filter((id) => !isHidden(committed.get(id)!) && (o.scope === undefined || s.replica.scopeOf(id) === o.scope));
  return ids.filter((id) => o.after === undefined || id > o.after).slice(0, o.limit ?? Infinity);
}

const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');

describe('storage.list(): ids kept in order as records change', () => {
  it('RESET-4 OPS-23 (model): after writes, scope moves, deletes, revivals and purges, every page is the shown records of its scope in id order after its cursor', async () => {
    const id = fc.integer({ min: 0, max: 40 }).map((n) => `r${String(n).padStart(2, '0')}`);
    const scope = fc.constantFrom('A', 'B', '*');
    const step = fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant<'write'>('write'), id, scope }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant<'delete'>('delete'), id }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant<'purge'>('purge'), id }) },
      {
        weight: 3,
        arbitrary: fc.record({ kind: fc.constant<'list'>('list'), scope: fc.option(scope, { nil: undefined }), limit: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }), after: fc.option(id, { nil: undefined }) }),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const { s } = await node(1_000_000, { sync: { scope: typed, signatures: false } });
        const purged = new Set<string>();
        try {
          for (const st of steps) {
            if (st.kind === 'write' && !purged.has(st.id)) await s.set(st.id, st.scope === '*' ? { n: 1 } : { $type: st.scope, n: 1 });
            else if (st.kind === 'delete' && !purged.has(st.id)) await s.delete(st.id);
            else if (st.kind === 'purge') { await s.purge(st.id); purged.add(st.id); }
            else if (st.kind === 'list') {
              const o = { scope: st.scope, limit: st.limit, after: st.after };
              expect((await s.list(o)).map((r) => r.id)).toEqual(naive(s, o));
            }
          }
          expect((await s.list()).map((r) => r.id)).toEqual(naive(s, {}));
          for (const sc of ['A', 'B', '*']) expect((await s.list({ scope: sc })).map((r) => r.id)).toEqual(naive(s, { scope: sc }));
        } finally {
          await s.close();
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('RESET-4: a change listener that lists sees the records of the whole batch that fired it, a new one and a deleted one alike', async () => {
    const { s } = await node(1_000_000, { durable: false });
    await s.set('a', { n: 1 });
    expect((await s.list()).map((r) => r.id)).toEqual(['a']);
    const seen: string[][] = [];
    // list() reads in one synchronous run: what it returns is what it saw inside the listener.
    s.on('change', () => void s.list().then((rows) => seen.push(rows.map((r) => r.id))));
    // Queued together, committed as one batch: the first op's event already sees the second's record.
    await Promise.all([s.set('b', { n: 2 }), s.set('c', { n: 3 }), s.delete('a')]);
    expect(seen[0]).toEqual(['b', 'c']);
    expect(seen.every((ids) => ids.join() === 'b,c')).toBe(true);
    await s.close();
  });

  it('a page costs the records it returns: after the first list, 20 rounds of (one write, a page of 10 from the middle of 30,000 records) read no other record and sort nothing', async () => {
    const { s } = await node(1_000_000, { durable: false });
    for (let i = 0; i < 30_000; i += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, k) => s.set(`r${String(i + k).padStart(5, '0')}`, { n: i + k })));
    }
    expect(await s.list({ limit: 1 })).toHaveLength(1);
    const committed = internals(s).committer.committed;
    const reads = jest.spyOn(committed, 'get');
    const walks = jest.spyOn(committed, 'keys');
    try {
      for (let r = 0; r < 20; r++) {
        await s.set(`new${r}`, { r });
        reads.mockClear();
        // list() reads in one synchronous run: counted before anything else (a records write, a merge) can run.
        const listing = s.list({ limit: 10, after: 'r15000' });
        const read = reads.mock.calls.length;
        expect((await listing).map((x) => x.id)).toEqual(Array.from({ length: 10 }, (_, k) => `r${15001 + k}`));
        expect(read).toBe(10);
      }
      // Before, each page walked and sorted every id (a merge of record files reads entries, never the keys).
      expect(walks).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
      walks.mockRestore();
      await s.close();
    }
  }, 120_000);
});

import { internals } from '../../src/testing/internals';
import fc from 'fast-check';
import type { Storage } from '../../src';
import { buildItemSet } from '../../src/reconcile';
import * as digest from '../../src/reconcile/digest';
import { labelItems, labelSet } from '../../src/reconcile/record-sets';
import { closeAll, node } from '../sync/helpers';
import { fcRuns } from './helpers';
import { expectSameSet } from './same-set';

// The spied module as a plain copy every importer shares: jest's transform (swc)
// exports a module's functions as getters that jest.spyOn cannot replace.
jest.mock('../../src/reconcile/digest', () => ({ __esModule: true, ...jest.requireActual<object>('../../src/reconcile/digest') }));

/** Labels under grants, as hosts and dialers ask for them: every record, the global scope's, one scope, an empty one. */
const ASKS: [label: string, granted: string[]][] = [['*', ['*']], ['*', ['A']], ['A', ['A']], ['B', ['A', 'B']], ['Z', ['Z']]];

/**
 * The digest index's sets equal sets digested from scratch, for the labels
 * of ASKS picked by `mask` (bit k: ASKS[k]; all by default). Asking some only
 * leaves the others' indexes to be built later, from what the index holds.
 */
function expectUpToDate(s: Storage, mask = 31): void {
  ASKS.forEach(([label, granted], k) => {
    if (mask & (1 << k)) expectSameSet(labelSet(s.replica, label, granted), buildItemSet(labelItems(s.replica, label, granted)));
  });
}

type Write =
  | { kind: 'set'; id: number; type?: string; n: number; sealed: boolean }
  | { kind: 'move'; id: number; type?: string }
  | { kind: 'inc' | 'delete' | 'purge'; id: number }
  | { kind: 'check'; mask: number };

const TYPES = fc.constantFrom(undefined, 'A', 'B');
const ID = fc.integer({ min: 0, max: 4 });
const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('set' as const), id: ID, type: TYPES, n: fc.integer({ min: 0, max: 3 }), sealed: fc.integer({ min: 0, max: 4 }).map((k) => k === 0) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('move' as const), id: ID, type: TYPES }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('inc' as const, 'delete' as const, 'purge' as const), id: ID }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('check' as const), mask: fc.oneof(fc.constant(31), fc.integer({ min: 0, max: 31 })) }) },
);

const dataOf = (type: string | undefined, n: number) => (type ? { $type: type, n } : { n });

/** One write; refusals (PURGED, NOT_SEALABLE, a missing record) are part of the sequence, not failures. */
async function apply(s: Storage, w: Write): Promise<void> {
  if (w.kind === 'check') return expectUpToDate(s, w.mask);
  const id = `r${w.id}`;
  const run = {
    set: () => s.set(id, dataOf((w as { type?: string }).type, (w as { n: number }).n), { sealed: (w as { sealed: boolean }).sealed || undefined }),
    move: () => s.update(id, { $type: (w as { type?: string }).type ?? '*' }),
    inc: () => s.inc(id, 'views'),
    delete: () => s.delete(id),
    purge: () => s.purge(id),
  }[w.kind];
  await run().catch(() => undefined);
}

describe('RECON digest index: kept up to date at commit time, equal to a full rebuild', () => {
  it('after any sequence of writes, scope moves, deletes, purges and sealed writes (RECONCILE.md: The set, Scopes; GUAR-19, OPS-10)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { maxLength: 40 }), fc.integer({ min: 0, max: 3 }).map((k) => k > 0), async (writes, early) => {
        const s = await node({ durable: false, sync: { signatures: false, scope: (_id, d) => (typeof d.$type === 'string' ? d.$type : '*') } });
        try {
          // Built before the writes (kept up to date by them) or only at the end (built from what is committed).
          if (early) expectUpToDate(s, 1);
          for (const w of writes) await apply(s, w);
          await internals(s).committer.idle();
          expectUpToDate(s);
        } finally {
          await closeAll(s);
        }
      }),
      { numRuns: fcRuns(500) },
    );
  });

  it.each([
    ['both scopes asked before the move', 31, 31],
    ['only the old scope asked before', 0b00101, 31],
    ['only the new scope asked before', 0b01001, 31],
    ['neither asked before, the old one after', 0b00001, 0b00101],
  ])('a record moving scope leaves the old scope\'s set and enters the new one\'s: %s', async (_name, before, after) => {
    const s = await node({ durable: false, sync: { signatures: false, scope: (_id, d) => (typeof d.$type === 'string' ? d.$type : '*') } });
    try {
      await s.set('r1', { $type: 'A', n: 1 });
      await s.set('r2', { $type: 'A', n: 2 });
      expectUpToDate(s, before);
      await s.update('r1', { $type: 'B' });
      expectUpToDate(s, after);
      await s.update('r2', { $type: 'B' });
      expectUpToDate(s, after);
      expectUpToDate(s);
    } finally {
      await closeAll(s);
    }
  });

  it('a set taken before a write stays as it was; the next one has only the touched record digested again', async () => {
    const s = await node({ durable: false, sync: { signatures: false } });
    try {
      for (let k = 0; k < 50; k++) await s.set(`r${k}`, { n: k });
      const before = labelSet(s.replica, '*', ['*']);
      const items = labelItems(s.replica, '*', ['*']);
      await s.update('r7', { n: -1 });
      expectSameSet(before, buildItemSet(items));
      expectUpToDate(s);
      expect(labelSet(s.replica, '*', ['*'])).toBe(labelSet(s.replica, '*', ['*']));
    } finally {
      await closeAll(s);
    }
  });

  it('a store written hard between two reads: commits digest the waiting ids by 1024, the next read only the rest', async () => {
    const s = await node({ durable: false, sync: { signatures: false, scope: (_id, d) => String(d.$type ?? '*') } });
    const spy = jest.spyOn(digest, 'entryDigest');
    try {
      expectUpToDate(s);
      spy.mockClear();
      for (let k = 0; k < 1100; k += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => s.set(`r${k + j}`, { $type: j % 2 ? 'A' : 'B', n: k })));
      await internals(s).committer.idle();
      expect(spy.mock.calls.length).toBeGreaterThanOrEqual(1024);
      spy.mockClear();
      labelSet(s.replica, '*', ['*']);
      expect(spy.mock.calls.length).toBeLessThan(1100 - 1024 + 1);
      expectUpToDate(s);
    } finally {
      spy.mockRestore();
      await closeAll(s);
    }
  });
});

import type { Op } from '../../src';
import { closeAll, hub, node } from '../sync/helpers';
import { craft, greet, push } from '../sync/scenario-helpers';

/**
 * What a snapshot paging's start costs the host after a commit
 * (docs/security.md, A token holder). The ids a paging of every scope
 * serves were sorted in and filtered anew whenever a commit came between
 * two pagings: a token holder alternating one write and one first page of
 * one record made the host walk every record (21 ms a round at 200,000
 * records); a paging of some scopes still did after the ids of every scope
 * were kept in order, until each scope's were. Counted through the sealed
 * and scope checks the filter made of every id, never by the clock.
 */
const RECORDS = 30_000;

describe('hostile: a peer alternating one write and a snapshot start does not make the host walk every record', () => {
  it(`PROTO-7 GUAR-3: ${RECORDS.toLocaleString('en')} records, 20 rounds of (push one write, first snapshot page of one record): each round looks at the records it touched, and every page serves the records of its moment`, async () => {
    // Pages of one record: what the round reads is one record, so what it costs beyond that is the start's.
    const h = await hub({ pageSize: 1 }, { durable: false });
    const writer = await node();
    const ctx = await greet(h.unit, writer, ['*']);
    let seq = 0;
    const op = (body: Pick<Op, 'type' | 'id'> & Partial<Op>) => craft(writer, body, '*', ++seq);
    for (let i = 0; i < RECORDS; i += 1000) {
      expect(await push(h.unit, ctx, Array.from({ length: 1000 }, (_, k) => op({ type: 'write', id: `r${i + k}`, data: { n: i + k } })))).toMatchObject({ applied: 1000 });
    }
    await h.s.replica.idle();
    await h.unit.call('snapshot', {}, ctx);
    const sealedChecks = jest.spyOn(h.s.replica, 'isSealed');
    try {
      for (let r = 0; r < 20; r++) {
        expect(await push(h.unit, ctx, [op({ type: 'write', id: `new${r}`, data: { r } })])).toMatchObject({ applied: 1 });
        await h.s.replica.idle();
        sealedChecks.mockClear();
        const page = (await h.unit.call('snapshot', {}, ctx)) as { total: number; entries: { id: string }[] };
        expect(page.total).toBe(RECORDS + r + 1);
        expect(page.entries.map((e) => e.id)).toEqual(['new0']);
        // The page's record, and the few the commit touched: before, one per record of the store.
        expect(sealedChecks.mock.calls.length).toBeLessThanOrEqual(4);
      }
    } finally {
      sealedChecks.mockRestore();
      await closeAll(h.s, writer);
    }
  }, 120_000);

  it(`PROTO-7 SCOPE-3 GUAR-3: ${RECORDS.toLocaleString('en')} records in four scopes, 20 rounds of (push one write, first page of one record of two scopes): each round looks at the records it touched, and every page serves the records of its scopes and moment`, async () => {
    const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');
    const h = await hub({ pageSize: 1 }, { durable: false, sync: { scope: typed } });
    const writer = await node();
    const reader = await node();
    const ctx = await greet(h.unit, writer, ['*']);
    const mine = await greet(h.unit, reader, ['A', 'B']);
    const seqs = new Map<string, number>();
    const op = (id: string, scope: string, data: Record<string, unknown>) => {
      seqs.set(scope, (seqs.get(scope) ?? 0) + 1);
      return craft(writer, { type: 'write', id, data: scope === '*' ? data : { $type: scope, ...data } }, scope, seqs.get(scope) as number);
    };
    // A, B, C and unscoped ('*', served to every scope) in turn: the pages serve three of every four.
    const scopes = ['A', 'B', 'C', '*'];
    for (let i = 0; i < RECORDS; i += 1000) {
      const ops = Array.from({ length: 1000 }, (_, k) => op(`r${i + k}`, scopes[(i + k) % 4], { n: i + k }));
      expect(await push(h.unit, ctx, ops)).toMatchObject({ applied: 1000 });
    }
    await h.s.replica.idle();
    await h.unit.call('snapshot', { scopes: ['A', 'B'] }, mine);
    const sealedChecks = jest.spyOn(h.s.replica, 'isSealed');
    const scopeChecks = jest.spyOn(h.s.replica, 'scopeOf');
    try {
      for (let r = 0; r < 20; r++) {
        // Into a served scope, then into one not served: only the first counts in the pages.
        expect(await push(h.unit, ctx, [op(`new${r}`, 'A', { r }), op(`other${r}`, 'C', { r })])).toMatchObject({ applied: 2 });
        await h.s.replica.idle();
        sealedChecks.mockClear();
        scopeChecks.mockClear();
        const page = (await h.unit.call('snapshot', { scopes: ['A', 'B'] }, mine)) as { total: number; entries: { id: string }[] };
        expect(page.total).toBe((RECORDS * 3) / 4 + r + 1);
        expect(page.entries.map((e) => e.id)).toEqual(['new0']);
        // The page's record, and the few the commit touched: before, each check once per record of the store.
        expect(sealedChecks.mock.calls.length).toBeLessThanOrEqual(6);
        expect(scopeChecks.mock.calls.length).toBeLessThanOrEqual(6);
      }
    } finally {
      sealedChecks.mockRestore();
      scopeChecks.mockRestore();
      await closeAll(h.s, writer, reader);
    }
  }, 120_000);
});

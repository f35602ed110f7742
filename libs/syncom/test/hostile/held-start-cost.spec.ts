import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';
import { craft, greet, push } from '../sync/scenario-helpers';

/**
 * A host holding ops for a newer schema (GUAR-26) serves each snapshot's and
 * each reconciliation's start at a point before the ops that wait. It found
 * them by reading every retained entry at every start, so one op any token
 * holder pushed with a newer `v` made each such start, a small call a greeted
 * socket may repeat, cost the whole log. The log is read once, then only past
 * what was read.
 */
describe('hostile peer: one held op and the host\'s snapshot and reconciliation starts', () => {
  it('GUAR-26 BOOT-2 PROTO-7: cost the entries logged since the last start, not the log', async () => {
    const h = await hub({ authorize: () => true }, { schema: { version: 1, types: {} } });
    const p = await node();
    const ctx = await greet(h.unit, p);
    await expect(push(h.unit, ctx, [craft(p, { type: 'write', id: 'newer', data: { a: 1 }, v: 2 }, '*', 1)])).resolves.toMatchObject({ held: 1 });
    for (let i = 0; i < 300; i++) await h.s.set(`r${i}`, { i });
    await internals(h.s).committer.idle();
    const log = internals(h.s).log;
    const read = jest.spyOn(log, 'read');
    const entriesRead = () => read.mock.results.reduce((n, r) => n + (r.value as unknown[]).length, 0);
    const first = (await h.unit.call('snapshot', {}, ctx)) as { eventId: string; vector: Record<string, number> };
    // Served from before the held op: the feed delivers it.
    expect(first.vector[p.id]).toBeUndefined();
    const once = entriesRead();
    expect(once).toBeGreaterThanOrEqual(301);
    for (let i = 0; i < 20; i++) await h.unit.call('snapshot', {}, ctx);
    // A start's point is taken before its message is decoded: this one (no message) is refused after it.
    await expect(h.unit.call('reconcile', { scope: '*', msg: null, start: true }, ctx)).rejects.toMatchObject({ code: 'RECONCILE_MALFORMED' });
    expect(entriesRead() - once).toBeLessThan(20);
    await h.s.set('later', { n: 1 });
    await internals(h.s).committer.idle();
    const again = (await h.unit.call('snapshot', {}, ctx)) as { eventId: string; vector: Record<string, number> };
    expect(again.eventId).toBe(first.eventId);
    expect(again.vector[p.id]).toBeUndefined();
    await closeAll(h.s, p);
  });
});

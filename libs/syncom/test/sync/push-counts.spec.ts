import { closeAll, hub, node } from './helpers';
import { craft, greet, push } from './scenario-helpers';

/**
 * The answer to a push counts every op of its page once: applied, skipped
 * (logged and relayed, not applied), or one of the refusals and drops
 * (duplicates, gaps, malformed, unsigned, forged, outOfScope). An op that
 * landed on an id purged here was logged as skipped and counted as nothing:
 * the answer, the dialer's `sync` event and the storage's `apply` event were
 * one short, and a page of such ops alone, though logged, fired no `apply`.
 */

const COUNTED = ['applied', 'skipped', 'duplicates', 'gaps', 'malformed', 'unsigned', 'forged', 'outOfScope'] as const;
const total = (answer: Record<string, unknown>) => COUNTED.reduce((n, k) => n + (answer[k] as number), 0);

describe('push answer counts', () => {
  it('OPS-10 PROTO-9 GUAR-12: an op landing on an id purged here is counted skipped, and the counts add up to the ops of the page', async () => {
    const h = await hub();
    const p = await node();
    const ctx = await greet(h.unit, p);
    await expect(push(h.unit, ctx, [craft(p, { type: 'write', id: 'rec', data: { v: 1 } }, '*', 1)])).resolves.toMatchObject({ applied: 1 });
    await h.s.purge('rec');
    const applies: { applied: number; skipped: number }[] = [];
    h.s.on('apply', (e) => applies.push(e));
    const page = [
      craft(p, { type: 'set', id: 'rec', data: { v: 2 } }, '*', 2),
      craft(p, { type: 'delete', id: 'rec' }, '*', 3),
      craft(p, { type: 'write', id: 'other', data: { v: 1 } }, '*', 4),
      craft(p, { type: 'write', id: 'late', data: { v: 1 } }, '*', 9),
    ];
    const answer = await push(h.unit, ctx, page);
    expect(answer).toMatchObject({ applied: 1, skipped: 2, gaps: 1 });
    expect(total(answer)).toBe(page.length);
    expect(await h.s.get('rec')).toBeUndefined();
    // A page of such ops alone was logged (durable), and says so.
    const only = await push(h.unit, ctx, [craft(p, { type: 'set', id: 'rec', data: { v: 3 } }, '*', 5)]);
    expect(only).toMatchObject({ applied: 0, skipped: 1 });
    await new Promise((r) => setImmediate(r));
    expect(applies).toEqual([expect.objectContaining({ applied: 1, skipped: 2 }), expect.objectContaining({ applied: 0, skipped: 1 })]);
    await closeAll(p, h.s);
  });
});

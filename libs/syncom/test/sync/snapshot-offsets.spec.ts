import type { Op } from '../../src';
import { closeAll, hub, node } from './helpers';
import { craft, greet, push } from './scenario-helpers';

interface Page { token: string; next: number | null; total: number; entries: { id: string }[] }

/**
 * Where a snapshot page may start: at 0 for a new paging, then at any
 * offset up to the furthest its pages reached (a retried page, or one of
 * them again). Past that it is refused 400 SNAPSHOT_OFFSET, so a page of
 * some scopes, read through the union of those scopes' ordered ids, never
 * walks further than the pages served (docs/security.md).
 */
describe('snapshot offsets', () => {
  async function scopedHub() {
    const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');
    const h = await hub({ pageSize: 2 }, { durable: false, sync: { scope: typed } });
    const writer = await node();
    const ctx = await greet(h.unit, writer, ['*']);
    const seqs = new Map<string, number>();
    const ops: Op[] = [];
    // r0..r11 in A, B, C and '*' in turn: a paging of A and B serves r0, r1, r3, r4, r5, r7, r8, r9, r11.
    for (let i = 0; i < 12; i++) {
      const scope = ['A', 'B', 'C', '*'][i % 4];
      seqs.set(scope, (seqs.get(scope) ?? 0) + 1);
      ops.push(craft(writer, { type: 'write', id: `r${String(i).padStart(2, '0')}`, data: scope === '*' ? { i } : { $type: scope, i } }, scope, seqs.get(scope) as number));
    }
    expect(await push(h.unit, ctx, ops)).toMatchObject({ applied: 12 });
    await h.s.replica.idle();
    const reader = await node();
    const mine = await greet(h.unit, reader, ['A', 'B']);
    const page = (args: Record<string, unknown>) => h.unit.call('snapshot', { scopes: ['A', 'B'], ...args }, mine) as Promise<Page>;
    return { h, page, close: () => closeAll(h.s, writer, reader) };
  }

  const ids = (p: Page) => p.entries.map((e) => e.id);

  it('PROTO-7 SCOPE-3: a first page asked at an offset past 0 is refused 400 SNAPSHOT_OFFSET and opens no paging', async () => {
    const { h, page, close } = await scopedHub();
    await expect(page({ offset: 3 })).rejects.toMatchObject({ code: 'SNAPSHOT_OFFSET', status: 400 });
    expect(h.unit.usage().pagings).toBe(0);
    await close();
  });

  it('PROTO-7 SCOPE-3: a page asked again, or from inside pages served, gives the same records; past the furthest reached is refused, and the paging goes on', async () => {
    const { page, close } = await scopedHub();
    const first = await page({});
    expect(first).toMatchObject({ total: 9, next: 2 });
    expect(ids(first)).toEqual(['r00', 'r01']);
    const { token } = first;
    const second = await page({ token, offset: 2 });
    expect(ids(second)).toEqual(['r03', 'r04']);
    const third = await page({ token, offset: 4 });
    expect(ids(third)).toEqual(['r05', 'r07']);
    // A retry of the second page, then one from inside the pages served.
    expect(ids(await page({ token, offset: 2 }))).toEqual(['r03', 'r04']);
    expect(ids(await page({ token, offset: 5 }))).toEqual(['r07', 'r08']);
    expect(ids(await page({ token, offset: 0 }))).toEqual(['r00', 'r01']);
    // Reached: 7 (the page from 5). Past it, refused; at it, served.
    await expect(page({ token, offset: 8 })).rejects.toMatchObject({ code: 'SNAPSHOT_OFFSET', status: 400 });
    const last = await page({ token, offset: 7 });
    expect(ids(last)).toEqual(['r09', 'r11']);
    expect(last.next).toBeNull();
    await close();
  });
});

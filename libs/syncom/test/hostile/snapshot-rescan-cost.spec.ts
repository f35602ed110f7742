import type { Op } from '../../src';
import { pageWalk } from '../../src/sync/host/snapshot';
import { closeAll, hub, node } from '../sync/helpers';
import { craft, greet, push } from '../sync/scenario-helpers';

/**
 * What a snapshot page costs the host when its paging's list holds a long
 * run of records no longer served (moved out of the paging's scopes since
 * its first page). A page may be asked again at any offset its paging
 * reached, and each ask walked the run again: a peer that moved the records
 * once asked offset 0 as often as it liked, each ask looking at every id of
 * the run for a page of a few records. Counted through the sealed check the
 * page makes of every id it looks at, never by the clock.
 */
const RECORDS = 5_000;
const MOVED = 4_000;
const PAGE = 10;

const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');
const idOf = (i: number) => `r${String(i).padStart(6, '0')}`;

type Page = { token: string; next: number | null; count: number; entries: { id: string }[] };

/** A hub scoping records by $type, holding RECORDS records of scope a, a writer granted '*', and its op maker. */
async function scene() {
  const h = await hub({ pageSize: PAGE }, { durable: false, sync: { scope: typed } });
  const writer = await node();
  const ctx = await greet(h.unit, writer, ['*']);
  const seqs = new Map<string, number>();
  const op = (i: number, scope: string) => {
    seqs.set(scope, (seqs.get(scope) ?? 0) + 1);
    return craft(writer, { type: 'write', id: idOf(i), data: { $type: scope, i } } as Pick<Op, 'type' | 'id'> & Partial<Op>, scope, seqs.get(scope) as number);
  };
  const write = async (from: number, to: number, scope: string) => {
    for (let i = from; i < to; i += 1000) {
      const ops = Array.from({ length: Math.min(1000, to - i) }, (_, k) => op(i + k, scope));
      expect(await push(h.unit, ctx, ops)).toMatchObject({ applied: ops.length });
    }
    await h.s.replica.idle();
  };
  await write(0, RECORDS, 'a');
  return { h, writer, ctx, write };
}

describe('hostile: a snapshot page asked again over records that left its scopes', () => {
  it(`PROTO-7 SCOPE-20 GUAR-3: ${MOVED.toLocaleString('en')} records moved out of a paging's scope, offset 0 asked 20 times: each ask looks at a bounded number of ids`, async () => {
    const { h, writer, ctx, write } = await scene();
    const first = (await h.unit.call('snapshot', { scopes: ['a'] }, ctx)) as Page;
    expect(first.count).toBe(PAGE);
    await write(0, MOVED, 'b');
    const looked = jest.spyOn(h.s.replica, 'isSealed');
    try {
      for (let r = 0; r < 20; r++) {
        looked.mockClear();
        const page = (await h.unit.call('snapshot', { token: first.token, offset: 0, scopes: ['a'] }, ctx)) as Page;
        // None of the run is served; the page ends where it stopped looking, and a later page reads on.
        expect(page.entries.every((e) => Number(e.id.slice(1)) >= MOVED)).toBe(true);
        expect(page.next).not.toBeNull();
        // Before: every id of the run, 4,010 looks an ask for ten records.
        expect(looked.mock.calls.length).toBeLessThanOrEqual(pageWalk(PAGE));
      }
    } finally {
      looked.mockRestore();
      await closeAll(h.s, writer);
    }
  }, 120_000);

  it('PROTO-7 BOOT-2 SCOPE-20: paged on from there, the paging serves every record still in its scope, each once, in order, and ends', async () => {
    const { h, writer, ctx, write } = await scene();
    const first = (await h.unit.call('snapshot', { scopes: ['a'] }, ctx)) as Page;
    await write(PAGE, MOVED, 'b');
    const ids = first.entries.map((e) => e.id);
    let next = first.next;
    let pages = 0;
    let empty = 0;
    while (next !== null) {
      const page = (await h.unit.call('snapshot', { token: first.token, offset: next, scopes: ['a'] }, ctx)) as Page;
      ids.push(...page.entries.map((e) => e.id));
      empty = page.count === 0 ? empty + 1 : 0;
      // A dialer takes up to 64 empty pages in a row (bootstrap.ts): a run this long stays well within it.
      expect(empty).toBeLessThan(64);
      expect(page.next === null || page.next > next).toBe(true);
      next = page.next;
      pages++;
    }
    const kept = Array.from({ length: PAGE }, (_, i) => idOf(i)).concat(Array.from({ length: RECORDS - MOVED }, (_, i) => idOf(MOVED + i)));
    expect(ids).toEqual(kept);
    expect(pages).toBeLessThan(Math.ceil(RECORDS / PAGE));
    await closeAll(h.s, writer);
  }, 120_000);
});

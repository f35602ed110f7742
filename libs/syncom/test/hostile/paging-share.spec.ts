import type { SyncomError } from '../../src';
import { closeAll, hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

type Page = { token: string; next: number | null };

/**
 * One token on many sockets (a hub lets a token hold 32) held every paging
 * of the unit (64) open by reading a page of each every 10 s: every other
 * peer's bootstrap was refused 503 SNAPSHOT_BUSY for as long as it went on.
 * A peer's pagings and streams are held to a quarter of the unit's.
 */
describe('hostile: one token asking every snapshot paging of a unit', () => {
  it('PROTO-7 BOOT-2: a token\'s pagings stop at a quarter of the unit\'s (503 SNAPSHOT_BUSY past it, while its own are in use); another token still bootstraps', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ pageSize: 1, authorize: () => true }, { now: () => clock.t });
    for (let i = 0; i < 4; i++) await h.s.insert({ i });
    const p = await node();
    const outcomes: string[] = [];
    const held: { token: string; ctx: object }[] = [];
    for (let c = 0; c < 16; c++) {
      const ctx = await greet(h.unit, p, ['*'], { token: 'greedy' });
      for (let i = 0; i < 4; i++) {
        try {
          held.push({ token: ((await h.unit.call('snapshot', {}, ctx)) as Page).token, ctx });
          outcomes.push('kept');
        } catch (e) {
          outcomes.push(`${(e as SyncomError).status} ${(e as SyncomError).code}`);
        }
      }
    }
    expect(outcomes.filter((o) => o === 'kept')).toHaveLength(16);
    expect(outcomes.filter((o) => o === '503 SNAPSHOT_BUSY')).toHaveLength(48);
    expect(h.unit.usage().pagings).toBe(16);
    // Another peer pages through, all the while.
    const other = await greet(h.unit, p, ['*'], { token: 'other' });
    let page = (await h.unit.call('snapshot', {}, other)) as Page;
    while (page.next !== null) page = (await h.unit.call('snapshot', { token: page.token, offset: page.next }, other)) as Page;
    // Its pagings kept in use (a page of each read within 30 s), the greedy token gets no more; idle, its oldest makes room.
    clock.t += 20_000;
    for (const { token, ctx } of held) await h.unit.call('snapshot', { token, offset: 0 }, ctx);
    // On a socket of its own (on one that holds four, the socket's least recently used makes room).
    const next = await greet(h.unit, p, ['*'], { token: 'greedy' });
    await expect(h.unit.call('snapshot', {}, next)).rejects.toMatchObject({ code: 'SNAPSHOT_BUSY', status: 503 });
    clock.t += 30_000;
    await expect(h.unit.call('snapshot', {}, next)).resolves.toMatchObject({ next: 1 });
    expect(h.unit.usage().pagings).toBe(16);
    await closeAll(h.s, p);
  });
});

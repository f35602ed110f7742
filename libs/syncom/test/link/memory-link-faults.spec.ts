import { createMemoryLink } from '../../src/link';
import type { LinkFaults } from '../../src/link';
import { FakeUnit } from './fake-unit';

/** Fifty calls and fifty pages through a link with `faults`; what came out. */
async function traffic(faults: LinkFaults) {
  const unit = new FakeUnit();
  const link = createMemoryLink(unit, { faults });
  const pages: string[] = [];
  link.subscribe('changes', {}, { onData: (_v, id) => void pages.push(id as string) });
  const outcomes = await Promise.all(
    Array.from({ length: 50 }, (_, i) => link.call('echo', i).then(() => 'ok', (e: { code: string }) => e.code)),
  );
  for (let i = 0; i < 50; i++) unit.publish(`e${i}`, i);
  await link.settle();
  return { stats: link.stats(), outcomes, pages, executed: unit.calls.length };
}

describe('memory link: faults', () => {
  it('LINK-10 the same seed replays the same drops and duplicates', async () => {
    const faults = { seed: 42, drop: 0.2, duplicate: 0.2 };
    const a = await traffic(faults);
    const b = await traffic(faults);
    expect(a).toEqual(b);
    expect(a.stats.pagesDropped).toBeGreaterThan(0);
    expect(a.stats.pagesDuplicated).toBeGreaterThan(0);
    expect(a.stats.callsDropped).toBeGreaterThan(0);
    expect(a.stats.callsDuplicated).toBeGreaterThan(0);
    expect(a.outcomes.filter((o) => o === 'LINK_TIMEOUT')).toHaveLength(a.stats.callsDropped);
    expect(a.pages.length).toBe(50 - a.stats.pagesDropped + a.stats.pagesDuplicated);
    const c = await traffic({ ...faults, seed: 43 });
    expect(c.stats).not.toEqual(a.stats);
  });

  it('LINK-10 a duplicated call runs twice at the host; a duplicated page comes twice with its event id', async () => {
    const unit = new FakeUnit();
    const link = createMemoryLink(unit, { faults: { duplicate: 1 } });
    const ids: unknown[] = [];
    link.subscribe('changes', {}, { onData: (_v, id) => void ids.push(id) });
    await expect(link.call('echo', 7)).resolves.toMatchObject({ args: 7 });
    unit.publish('e1', 1);
    await link.settle();
    expect(unit.calls.map((c) => c.args)).toEqual([7, 7]);
    expect(ids).toEqual(['e1', 'e1']);
  });

  it('LINK-10 a dropped call rejects with LINK_TIMEOUT; faults can change at any time', async () => {
    const link = createMemoryLink(new FakeUnit());
    link.faults({ drop: 1 });
    await expect(link.call('echo', 1)).rejects.toMatchObject({ code: 'LINK_TIMEOUT' });
    link.faults({});
    await expect(link.call('echo', 2)).resolves.toMatchObject({ args: 2 });
    expect(() => link.faults({ drop: 2 })).toThrow(TypeError);
  });

  it('LINK-10 delays keep answers in order unless reorder is on; settle waits for them', async () => {
    const order = async (faults: LinkFaults) => {
      const link = createMemoryLink(new FakeUnit(), { faults });
      const seen: number[] = [];
      for (let i = 0; i < 8; i++) void link.call('echo', i).then(() => seen.push(i));
      await link.settle();
      return seen;
    };
    expect(await order({ seed: 5, delay: 6 })).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const shuffled = await order({ seed: 5, delay: (rng) => 1 + Math.floor(rng() * 6), reorder: true });
    expect([...shuffled].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(shuffled).not.toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('LINK-10 delayed pages stay in order within a subscription', async () => {
    const unit = new FakeUnit();
    const link = createMemoryLink(unit, { faults: { seed: 9, delay: 5 } });
    const ids: unknown[] = [];
    link.subscribe('changes', {}, { onData: (_v, id) => void ids.push(id) });
    for (let i = 0; i < 6; i++) unit.publish(`e${i}`, i);
    await link.settle();
    expect(ids).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5']);
  });

  describe('with fake timers', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('LINK-10 without faults no timer is ever set: calls, pages and settle run on microtasks', async () => {
      const unit = new FakeUnit();
      const link = createMemoryLink(unit);
      const ids: unknown[] = [];
      link.subscribe('changes', {}, { onData: (_v, id) => void ids.push(id) });
      unit.publish('e1', 1);
      await expect(link.call('echo', 1)).resolves.toMatchObject({ args: 1 });
      await link.settle();
      expect(ids).toEqual(['e1']);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('LINK-10 a cut wakes delayed answers: the call fails with LINK_DOWN at once', async () => {
      const link = createMemoryLink(new FakeUnit(), { faults: { delay: () => 10_000 } });
      const pending = link.call('echo', 1);
      await Promise.resolve();
      link.cut();
      await expect(pending).rejects.toMatchObject({ code: 'LINK_DOWN' });
      await link.settle();
      expect(jest.getTimerCount()).toBe(0);
    });
  });
});

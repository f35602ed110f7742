import { closeAll, dialer, hostAndDialer, records, until } from './helpers';

/**
 * A dialer with a backlog registers a new host: it pushes its records, then
 * bootstraps from the host and gets them back in the snapshot. A record the
 * join leaves as it was takes no merge op (nothing to sign, log or write);
 * one the host holds newer is joined as before.
 */
jest.setTimeout(30_000);

describe('bootstrap: records the snapshot brings back unchanged', () => {
  const merges = (s: { replica: { read(after: number): { op: { type: string; id: string } }[] } }) =>
    s.replica.read(0).filter((e) => e.op.type === 'merge').map((e) => e.op.id);

  it('BOOT-4 BOOT-9: a dialer bootstrapping after pushing its backlog logs no merge op for its own unchanged records; a node resuming from it gets them all', async () => {
    const { net, h, d, errors } = await hostAndDialer('memory://h');
    const ids = [await d.insert({ a: 1 }), await d.insert({ b: 2 }), await d.insert({ c: 3 })];
    const booted = new Promise((resolve) => d.sync.on('bootstrap', resolve));
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await booted;
    await until(async () => (await records(h.s)).length === 3, [d, h.s]);
    await d.replica.idle();
    expect(merges(d)).toEqual([]);
    // Transitive (BOOT-9): a third node bootstrapping from the dialer has every record.
    net.units.set('memory://d', d.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' }));
    const third = await dialer(net, { sync: { antiEntropyInterval: 0 } });
    await third.sync.addNode({ url: 'memory://d', token: 't' });
    await until(async () => (await records(third)).length === 3, [third, d]);
    expect(await records(third)).toEqual(await records(d));
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(errors).toEqual([]);
    await closeAll(third, d, h.s);
  });

  it('BOOT-4: a record the host holds newer than the dialer is joined by a merge op', async () => {
    // The host's clock a minute ahead: its write is newer whatever millisecond both land in (a tie is the origins' order).
    const { h, d } = await hostAndDialer('memory://h', { hub: { now: () => Date.now() + 60_000 } });
    const id = await d.insert({ a: 1 });
    const copy = await d.get(id);
    // The host has the record with a newer field (as another writer left it): the join changes it here.
    await h.s.set(id, { ...copy, a: 2 });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    // Bounded (until rejects with a reason): the join reaches the record whichever sync event comes first.
    await until(async () => (await d.get(id))?.a === 2, [d]);
    await d.replica.idle();
    expect(merges(d)).toContain(id);
    await closeAll(d, h.s);
  });
});

import type { SyncomError } from '../../src';
import { closeAll, dialer, hub, hostAndDialer, Net, until } from './helpers';

const URL = 'memory://h';

/**
 * What peers() says of a host across a link's drop and return, read as a
 * page showing sync state reads it (docs/replication.md, apps/web/src/sync-state.ts).
 */
describe('peers() across a dropped link', () => {
  it('LIFE-4: no feed reads subscribed while the link is down, and it does again once the host is back', async () => {
    const { net, h, d } = await hostAndDialer(URL);
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true });
    const seen: unknown[] = [];
    d.sync.on('peer', (e) => { if (!e.connected) seen.push(d.sync.peers()[0]); });
    net.links[0].cut();
    expect(seen).toEqual([expect.objectContaining({ connected: false, subscribed: false })]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: false, subscribed: false });
    net.links[0].restore();
    await d.sync.synced(URL);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true });
    await closeAll(d, h.s);
  });

  it('LIFE-4: lastError says the link is down once it drops, and an answered hello clears it', async () => {
    const { net, h, d, errors } = await hostAndDialer(URL);
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL);
    net.links[0].cut();
    expect(d.sync.peers()[0]).toMatchObject({ connected: false, lastError: { code: 'LINK_DOWN', url: URL } });
    // A lost link is no error event (docs/replication.md, the error event).
    expect(errors).toEqual([]);
    net.links[0].restore();
    await d.sync.synced(URL);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, lastError: null });
    await closeAll(d, h.s);
  });

  it('LIFE-4: a refused hello answered later is no lastError: a host down after it does not read as refusing the token', async () => {
    let admit = false;
    const h = await hub({ authorize: (_c, hello) => admit && hello.token === 't' });
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.length === 1, [d]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: false, lastError: { code: 'UNAUTHORIZED', status: 401 } });
    // The hub takes the token now (its operator fixed its list); the next connection greets.
    admit = true;
    net.links[0].cut();
    net.links[0].restore();
    await d.sync.synced(URL);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, lastError: null });
    net.links[0].cut();
    expect(d.sync.peers()[0].connected).toBe(false);
    expect(d.sync.peers()[0].lastError?.code).toBe('LINK_DOWN');
    await closeAll(d, h.s);
  });
});

describe('peers().pending as the link drops', () => {
  it('LIFE-4: reads 0 once the link is down, as documented, though writes queued behind a push in flight wait; the hub gets them once back', async () => {
    // The hub holds the first push until the link is cut: the writes after it stay queued.
    let release!: () => void;
    const held = new Promise<boolean>((resolve) => (release = () => resolve(true)));
    const { net, h, d } = await hostAndDialer(URL, { hub: { sync: { hooks: { beforeApply: () => held } } } });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL);
    const atDrop: number[] = [];
    d.sync.on('peer', (e) => { if (!e.connected) atDrop.push(d.sync.peers()[0].pending); });
    // The first write's push is in flight; the next two queue behind it.
    const ids = [await d.insert({ a: 1 }), await d.insert({ a: 2 }), await d.insert({ a: 3 })];
    expect(d.sync.peers()[0].pending).toBe(2);
    net.links[0].cut();
    expect(atDrop).toEqual([0]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: false, pending: 0 });
    release();
    net.links[0].restore();
    await d.sync.synced(URL);
    for (const id of ids) expect(await h.s.has(id)).toBe(true);
    await closeAll(d, h.s);
  });
});

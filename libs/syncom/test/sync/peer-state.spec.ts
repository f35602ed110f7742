import { closeAll, hostAndDialer } from './helpers';

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
});

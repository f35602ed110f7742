import type { Storage } from 'syncom';
import { socketDialer } from '../helpers/dialer';
import { startHub, type TestHub } from '../helpers/hub';
import { until } from '../helpers/until';

describe('replication through the socket.io gateway', () => {
  let hub: TestHub;
  const storages: Storage[] = [];

  afterEach(async () => {
    for (const s of storages.splice(0)) await s.close();
    await hub?.close();
  });

  it('LINK-2 HOST-1 PROTO-2 PROTO-4 PROTO-5 PROTO-6: a write at A reaches the hub, a hub write reaches A', async () => {
    hub = await startHub({ options: { authorize: (_ctx, hello) => hello.token === 't' } });
    const a = await socketDialer();
    storages.push(a.storage);
    await a.storage.sync.addNode({ url: hub.url, token: 't' });
    const fromA = await a.storage.insert({ title: 'from A' });
    await until(async () => (await hub.storage.get(fromA)) !== undefined, [hub.storage, a.storage], 'A write at the hub');
    expect(await hub.storage.get(fromA)).toEqual({ title: 'from A' });
    const fromHub = await hub.storage.insert({ title: 'from hub' });
    await until(async () => (await a.storage.get(fromHub)) !== undefined, [hub.storage, a.storage], 'the hub write at A');
    expect(await a.storage.get(fromHub)).toEqual({ title: 'from hub' });
    expect(a.storage.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true, node: hub.storage.id });
  });
});

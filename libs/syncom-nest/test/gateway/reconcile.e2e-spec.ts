import type { Storage } from 'syncom';
import { socketDialer } from '../helpers/dialer';
import { memoryStorage, type TestHub } from '../helpers/hub';
import { gatewayFixture } from '../helpers/fixture';
import { until } from '../helpers/until';
import { field, skipOnce } from '../../../syncom/test/sync/repair-helpers';

const rows = async (s: Storage) => (await s.list()).map((r) => [r.id, r.data]);


describe('WIRE RECON over the socket.io gateway (issue 6)', () => {
  let hub: TestHub | undefined;
  const { storages, startHub } = gatewayFixture();

  it('RECON: forceSync reconciles through reconcile and records messages; a skipped op on each side is repaired', async () => {
    const hs = skipOnce('from-d');
    const ds = skipOnce('from-h');
    const storage = await memoryStorage({ sync: { hooks: { beforeApply: hs.beforeApply } } });
    storages.push(storage);
    hub = await startHub({ storage });
    const a = await socketDialer({ sync: { antiEntropyInterval: 0, hooks: { beforeApply: ds.beforeApply } } });
    storages.push(a.storage);
    await a.storage.sync.addNode({ url: hub.url });
    const x = await a.storage.insert({ x: 1 });
    const y = await hub.storage.insert({ y: 1 });
    await until(async () => (await hub!.storage.has(x)) && (await a.storage.has(y)), [a.storage, hub.storage], 'the first writes');
    await a.storage.update(x, { x: 'from-d' });
    await hub.storage.update(y, { y: 'from-h' });
    await until(() => hs.state.skipped && ds.state.skipped, [a.storage, hub.storage], 'the skips');
    await a.storage.sync.forceSync();
    expect([field(hub.storage, x, 'x'), field(a.storage, y, 'y')]).toEqual(['from-d', 'from-h']);
    expect(await rows(a.storage)).toEqual(await rows(hub.storage));
    const events = new Set(a.sent.map(([e]) => e));
    expect([events.has('reconcile'), events.has('records')]).toEqual([true, true]);
  });

  it('WIRE: a dialer pinned to a version the hub lacks: both emit incompatible and the dialer stops dialing', async () => {
    hub = await startHub();
    const atHub: unknown[] = [];
    hub.storage.sync.on('incompatible', (e) => atHub.push(e));
    const a = await socketDialer({ sync: { wireVersions: [9] } });
    storages.push(a.storage);
    const seen = new Promise((resolve) => a.storage.sync.on('incompatible', resolve));
    await a.storage.sync.addNode({ url: hub.url });
    expect(await seen).toEqual({ peer: hub.url, versions: [1] });
    expect(atHub).toEqual([{ peer: a.storage.id, versions: [9] }]);
    expect(a.sent.filter(([e]) => e !== 'hello')).toEqual([]);
  });
});

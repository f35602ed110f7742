import type { SyncomError } from 'syncom';
import { socketDialer } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import { until } from '../helpers/until';

/**
 * An honest host holding a record larger than the dialer's maxPayload
 * streams it as one frame, which ws refuses by closing the connection. The
 * dialer used to redial at socket.io's pace (every second or faster, the
 * whole record sent again each time) and said nothing. Now the drop is
 * reported as FRAME_TOO_LARGE and the link redials itself, backed off,
 * with socket.io's own quick reconnection stopped.
 */
describe('a frame over the dialer\'s maxPayload', () => {
  const { storages, startHub } = gatewayFixture();

  it('BOOT-1 HOST-6: is reported FRAME_TOO_LARGE, and the link, not socket.io, dials again', async () => {
    const hub = await startHub({ options: { authorize: (_c, h) => h.token === 't' } });
    const part = 'x'.repeat(600 * 1024);
    const id = await hub.storage.insert({ a: part });
    await hub.storage.update(id, { b: part });
    const d = await socketDialer({}, { transportOptions: { websocket: { maxPayload: 1024 * 1024 } } });
    storages.push(d.storage);
    const errors: SyncomError[] = [];
    let activeAtError: boolean[] = [];
    d.storage.sync.on('error', (e) => {
      errors.push(e);
      if (e.code === 'FRAME_TOO_LARGE') activeAtError = [...activeAtError, d.sockets[0].active];
    });
    await d.storage.sync.addNode({ url: hub.url, token: 't' });
    await until(() => errors.some((e) => e.code === 'FRAME_TOO_LARGE'), [d.storage, hub.storage], 'the first FRAME_TOO_LARGE');
    expect(errors.find((e) => e.code === 'FRAME_TOO_LARGE')?.message).toContain('1048576 bytes');
    // socket.io's own reconnection is off: the link's backed-off redial brings the next try.
    expect(activeAtError[0]).toBe(false);
    await until(() => errors.filter((e) => e.code === 'FRAME_TOO_LARGE').length >= 2, [d.storage, hub.storage], 'the redial and its FRAME_TOO_LARGE');
    expect(await d.storage.get(id)).toBeUndefined();
  }, 30_000);

  it('PROTO-12 HOST-6: a changes page over it, with no call in flight, is reported FRAME_TOO_LARGE too (the dialer only flapped, LINK_DOWN)', async () => {
    // The page's drop failed only the feed's own request, whose error a new connection's feed drops:
    // an idle dialer said nothing, and nothing named the bound to raise.
    const hub = await startHub({ options: { authorize: (_c, h) => h.token === 't' } });
    const d = await socketDialer({}, { transportOptions: { websocket: { maxPayload: 1024 * 1024 } } });
    storages.push(d.storage);
    const errors: SyncomError[] = [];
    d.storage.sync.on('error', (e) => errors.push(e));
    await d.storage.sync.addNode({ url: hub.url, token: 't' });
    await d.storage.sync.synced(hub.url);
    await hub.storage.insert({ a: 'x'.repeat(1.2 * 2 ** 20) });
    await until(() => errors.some((e) => e.code === 'FRAME_TOO_LARGE'), [d.storage, hub.storage], 'FRAME_TOO_LARGE');
    expect(d.storage.sync.peers()[0].lastError?.code).toBe('FRAME_TOO_LARGE');
  }, 30_000);
});

import { MAX_IN_FLIGHT_FRAMES, type SyncomError } from 'syncom';
import { socketDialer } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import { until } from '../helpers/until';

/**
 * The dialer holds a host to the window it offers, and drops one that sends
 * past it (the socket.io link's page bound, MAX_IN_FLIGHT_FRAMES plus a few);
 * a host may be set no wider. A gateway set wider (300) had every honest
 * dialer dropped, redialed and dropped again while a burst was out (18 of
 * 600 records after 15 s), so the widest window a host takes is the one a
 * dialer accepts.
 */
describe('the widest send window a host takes', () => {
  const { storages, startHub } = gatewayFixture();

  it('HOST-6 PROTO-6: a gateway at the widest window (one op a page) sends a burst of 600 to an honest dialer, nothing dropped', async () => {
    const hub = await startHub({ options: { authorize: (_c, h) => h.token === 't', maxInFlightFrames: MAX_IN_FLIGHT_FRAMES, pageSize: 1 } });
    const d = await socketDialer();
    storages.push(d.storage);
    const errors: SyncomError[] = [];
    d.storage.sync.on('error', (e) => errors.push(e));
    await d.storage.sync.addNode({ url: hub.url, token: 't' });
    await until(() => d.storage.sync.peers()[0]?.subscribed === true, [d.storage, hub.storage], 'the dialer subscribed');
    await Promise.all(Array.from({ length: 600 }, (_, i) => hub.storage.insert({ i })));
    await until(async () => (await d.storage.list()).length === 600, [d.storage, hub.storage], 'the burst at the dialer');
    expect(errors.map((e) => e.code)).toEqual([]);
    expect(d.sockets).toHaveLength(1);
  }, 60_000);

  it('HOST-6: a window wider than a dialer accepts is refused where the host is made (INVALID_ARGUMENT)', async () => {
    await expect(startHub({ options: { maxInFlightFrames: MAX_IN_FLIGHT_FRAMES + 1 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

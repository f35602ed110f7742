import type { Storage } from 'syncom';
import { socketDialer } from '../helpers/dialer';
import { memoryStorage, type TestHub } from '../helpers/hub';
import { gatewayFixture } from '../helpers/fixture';
import { until, waitFor } from '../helpers/until';

type PeerEvent = { connected: boolean; reconnected: boolean };

describe('replication through the socket.io gateway', () => {
  let hub: TestHub | undefined;
  const { storages, startHub } = gatewayFixture();

  /** A dialer registered at the hub, its first contact (bootstrap) done and a page taken from the live feed. */
  async function dialed(h: TestHub) {
    const a = await socketDialer();
    storages.push(a.storage);
    const boots: unknown[] = [];
    const peers: PeerEvent[] = [];
    a.storage.sync.on('bootstrap', (e) => boots.push(e));
    a.storage.sync.on('peer', (e) => peers.push(e));
    await a.storage.sync.addNode({ url: h.url, token: 't' });
    await until(() => boots.length === 1 && a.storage.sync.peers()[0]?.subscribed === true, [a.storage], 'the bootstrap');
    await h.storage.insert({ live: true });
    const cursor = h.storage.replica.eventId(h.storage.replica.head);
    await pageAcked(h, cursor);
    return { ...a, boots, peers, cursor };
  }

  /**
   * Resolves once the dialer acked the page `eventId`: the hub's feed then
   * moves its cursor there, and the link has taken it. Re-checked a turn
   * after each packet the hub's socket receives (the ack resolves in microtasks).
   */
  function pageAcked(h: TestHub, eventId: string): Promise<void> {
    const [socket] = [...h.namespace().sockets.values()];
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    return waitFor(async () => (await turn(), h.storage.sync.hosted().some((f) => f.cursor === eventId)), (retest) => {
      socket.conn.on('packet', retest);
      return () => socket.conn.off('packet', retest);
    }, `the ack of page ${eventId}`);
  }

  /** The lastEventId of the newest changes message the dialer sent. */
  const lastResume = (sent: Array<[string, unknown]>) => (sent.filter(([e]) => e === 'changes').at(-1)?.[1] as { lastEventId?: string }).lastEventId;

  it('LINK-2 HOST-1 PROTO-2 PROTO-4 PROTO-5 PROTO-6: a write at A reaches the hub, a hub write reaches A', async () => {
    hub = await startHub({ options: { authorize: (_ctx, hello) => hello.token === 't' } });
    const h = hub;
    const a = await socketDialer();
    storages.push(a.storage);
    const boots: unknown[] = [];
    a.storage.sync.on('bootstrap', (e) => boots.push(e));
    await a.storage.sync.addNode({ url: h.url, token: 't' });
    const fromA = await a.storage.insert({ title: 'from A' });
    // A fresh node bootstraps first; the hub write below then comes down the live feed.
    await until(() => boots.length === 1, [a.storage], 'the bootstrap');
    await until(async () => (await h.storage.get(fromA)) !== undefined, [h.storage, a.storage], 'the write of A at the hub');
    expect(await h.storage.get(fromA)).toEqual({ title: 'from A' });
    const fromHub = await h.storage.insert({ title: 'from hub' });
    await until(async () => (await a.storage.get(fromHub)) !== undefined, [h.storage, a.storage], 'the hub write at A');
    expect(await a.storage.get(fromHub)).toEqual({ title: 'from hub' });
    expect(a.storage.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true, node: h.storage.id });
    expect(h.storage.sync.hosted()).toMatchObject([{ node: a.storage.id, scopes: ['*'] }]);
  });

  it('PROTO-8 an op made at A reaches B through the hub, hop by hop', async () => {
    hub = await startHub();
    const h = hub;
    const [a, b] = [await socketDialer(), await socketDialer()];
    storages.push(a.storage, b.storage);
    await a.storage.sync.addNode({ url: h.url });
    await b.storage.sync.addNode({ url: h.url });
    const id = await a.storage.insert({ via: 'hub' });
    await until(async () => (await b.storage.get(id)) !== undefined, [a.storage, b.storage, h.storage], 'the write of A at B');
    expect(await b.storage.get(id)).toEqual({ via: 'hub' });
  });

  it('PROTO-12 PROTO-13 LINK-6: a socket the hub drops reconnects; changes resume from the last event id, no new bootstrap', async () => {
    hub = await startHub();
    const h = hub;
    const a = await dialed(h);
    const [server] = await h.namespace().fetchSockets();
    server.disconnect(true);
    await until(() => a.peers.some((p) => p.reconnected) && a.storage.sync.peers()[0].connected, [a.storage], 'the reconnect');
    const after = await h.storage.insert({ after: 'drop' });
    await until(async () => (await a.storage.get(after)) !== undefined, [a.storage], 'a write after the drop');
    expect(a.boots).toHaveLength(1);
    expect(a.cursor).toEqual(expect.any(String));
    expect(lastResume(a.sent)).toBe(a.cursor);
    expect(a.sockets).toHaveLength(1);
  });

  it('PROTO-12 PROTO-13: the hub restarts on the same port; the dialer resumes from its event id, no new bootstrap', async () => {
    const storage = await memoryStorage();
    storages.push(storage);
    let h = await startHub({ storage });
    hub = h;
    const a = await dialed(h);
    const port = h.port;
    await h.close();
    await until(() => !a.storage.sync.peers()[0].connected, [a.storage], 'the dialer seeing the hub go');
    const during = await storage.insert({ written: 'while down' });
    h = await startHub({ storage, port });
    hub = h;
    await until(async () => (await a.storage.get(during)) !== undefined, [a.storage], 'the write made while the hub was down');
    expect(a.boots).toHaveLength(1);
    expect(lastResume(a.sent)).toBe(a.cursor);
    const back = await a.storage.insert({ back: true });
    await until(async () => (await storage.get(back)) !== undefined, [a.storage, storage], 'a write of A after the restart');
  });
});

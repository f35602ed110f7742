import { http, until } from '../../example-api/test/apps';
import { hubConfigFromEnv } from '../src/hub.config';
import { TestHubs } from './test-hubs';

/**
 * GET /health is unauthenticated. It listed every writer's node id and seq,
 * and the hosted peers' ids, scopes and cursors: what an impersonator needs.
 * By default it now answers counts only; SYNCOM_HEALTH_DETAIL=1 adds the rest.
 */
describe('apps/hub: GET /health (hostile, e2e)', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  /** A hub with a client that wrote once and holds a feed (the second hub write reaches it through the feed). */
  async function busyHub(name: string, healthDetail: boolean) {
    const hub = await hubs.start(name, { healthDetail });
    const a = await hubs.apps.api(`${name}-a`, hub.syncomUrl);
    const id = (await http(`${a.url}/notes`, 'POST', { title: 'x' })).body.id;
    for (const title of ['first from the hub', 'second from the hub']) {
      const back = await hub.storage.insert({ $type: 'Note', title });
      await until(async () => (await hub.storage.has(id)) && (await a.storage.has(back)), [hub.storage, a.storage]);
    }
    return { hub, a, body: (await http(`${hub.url}/health`)).body };
  }

  it('SYNCOM_HEALTH_DETAIL: 1 or true turns the detail on; unset or 0 leaves it off; anything else is refused', () => {
    expect(hubConfigFromEnv({}).healthDetail).toBe(false);
    expect(hubConfigFromEnv({ SYNCOM_HEALTH_DETAIL: '1' }).healthDetail).toBe(true);
    expect(hubConfigFromEnv({ SYNCOM_HEALTH_DETAIL: '0' }).healthDetail).toBe(false);
    expect(() => hubConfigFromEnv({ SYNCOM_HEALTH_DETAIL: 'yes' })).toThrow(/^SYNCOM_HEALTH_DETAIL="yes"/);
  });

  it('by default it answers ok, id, uptime, counts and the log\'s bounds, and names no peer node, seq, scope or cursor', async () => {
    const { hub, a, body } = await busyHub('brief', false);
    const head = hub.storage.replica.head;
    expect(body).toEqual({
      ok: true, id: hub.storage.id, uptime: expect.any(Number),
      counts: { peersConnected: 0, peers: 0, hosted: 1, records: 3 },
      log: { floor: 0, head, size: head },
    });
    expect(JSON.stringify(body)).not.toContain(a.storage.id);
  });

  it('LIFE-5: with SYNCOM_HEALTH_DETAIL=1 it adds the vector, the dialed peers and the hosted feeds', async () => {
    const { hub, a, body } = await busyHub('detail', true);
    expect(body).toMatchObject({ ok: true, id: hub.storage.id, counts: { hosted: 1, records: 3 } });
    // The hub and the example-api both scope Note writes by $type (LOG-10: origin@scope).
    expect(body.vector).toEqual({ [`${a.storage.id}@Note`]: 1, [`${hub.storage.id}@Note`]: 2 });
    expect(body.peers).toEqual([]);
    expect(body.hosted).toEqual([expect.objectContaining({ node: a.storage.id, scopes: ['*'] })]);
  });
});

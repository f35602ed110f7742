import { Apps, http, until } from '../../example-api/test/apps';

describe('apps/hub (e2e)', () => {
  const apps = new Apps();
  afterAll(() => apps.stopAll());

  it('LIFE-5: GET /health answers { id, vector, peers, hosted }, and hosted lists a connected peer', async () => {
    const hub = await apps.hub('hub');
    const empty = await http(`${hub.url}/health`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ id: hub.storage.id, vector: {}, peers: [], hosted: [] });
    const a = await apps.api('a', hub.syncomUrl);
    const id = (await http(`${a.url}/notes`, 'POST', { title: 'x' })).body.id;
    // A is a fresh node: its first contact is a bootstrap, then a feed. A hub write reaching A after
    // another one did can only have come through that feed, so the feed is hosted by then.
    for (const title of ['first from the hub', 'second from the hub']) {
      const back = await hub.storage.insert({ $type: 'Note', title });
      await until(async () => (await hub.storage.has(id)) && (await a.storage.has(back)), [hub.storage, a.storage]);
    }
    const health = (await http(`${hub.url}/health`)).body;
    expect(health.vector).toEqual({ [a.storage.id]: 1, [hub.storage.id]: 2 });
    expect(health.hosted).toEqual([expect.objectContaining({ node: a.storage.id, scopes: ['*'] })]);
  });

  it('forRootAsync with ConfigService injection: the hub reads its path and tokens through ConfigService', async () => {
    const hub = await apps.hub('hub-cfg', { tokens: ['only-this'] });
    const ok = await apps.api('ok', hub.syncomUrl, 'only-this');
    const id = (await http(`${ok.url}/notes`, 'POST', { title: 'y' })).body.id;
    await until(() => hub.storage.has(id), [hub.storage]);
    expect(hub.storage.parts.options.path).toBe(`${apps.dir}/hub-cfg`);
  });
});

import { Apps, http, until } from '../../example-api/test/apps';

describe('apps/hub (e2e)', () => {
  const apps = new Apps();
  afterAll(() => apps.stopAll());

  it('GET /health answers { ok, id, uptime, counts, log } (SYNCOM_HEALTH_DETAIL=1 adds vector, peers and hosted: health-exposure.e2e-spec)', async () => {
    const hub = await apps.hub('hub');
    const empty = await http(`${hub.url}/health`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      ok: true, id: hub.storage.id, uptime: expect.any(Number),
      counts: { peersConnected: 0, peers: 0, hosted: 0, records: 0 }, log: { floor: 0, head: 0, size: 0 },
    });
  });

  it('forRootAsync with ConfigService injection: the hub reads its path and tokens through ConfigService', async () => {
    const hub = await apps.hub('hub-cfg', { tokens: ['only-this'] });
    const ok = await apps.api('ok', hub.syncomUrl, 'only-this');
    const id = (await http(`${ok.url}/notes`, 'POST', { title: 'y' })).body.id;
    await until(() => hub.storage.has(id), [hub.storage]);
    expect(hub.storage.replica.options.path).toBe(`${apps.dir}/hub-cfg`);
  });
});

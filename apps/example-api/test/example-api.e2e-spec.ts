import { Apps, http, until } from './apps';

const sameTags = (t: unknown, want: string[]) => Array.isArray(t) && t.length === want.length && want.every((x) => t.includes(x));

describe('example-api through a hub (e2e, socket.io and HTTP on loopback)', () => {
  const apps = new Apps();
  afterAll(() => apps.stopAll());

  it('LINK-2 PROTO-1: a REST write on A is readable through B; concurrent tag adds keep both; counters add up', async () => {
    const hub = await apps.hub('hub');
    const [a, b] = [await apps.api('a', hub.syncomUrl), await apps.api('b', hub.syncomUrl)];
    const { body: { id } } = await http(`${a.url}/notes`, 'POST', { title: 'from A', body: 'hi' });
    await until(async () => (await b.storage.get(id))?.title === 'from A', [b.storage]);
    expect((await http(`${b.url}/notes/${id}`)).body).toMatchObject({ id, title: 'from A', body: 'hi', $type: 'Note' });

    await Promise.all([http(`${a.url}/notes/${id}/tags`, 'POST', { add: ['red'] }), http(`${b.url}/notes/${id}/tags`, 'POST', { add: ['blue'] })]);
    for (const _ of [1, 2, 3]) await http(`${a.url}/notes/${id}/views`, 'POST');
    for (const _ of [1, 2]) await http(`${b.url}/notes/${id}/views`, 'POST');
    const settled = async (s: typeof a) => { const n = await s.storage.get(id); return n?.views === 5 && sameTags(n?.tags, ['blue', 'red']); };
    await until(async () => (await settled(a)) && (await settled(b)), [a.storage, b.storage]);
    expect((await http(`${a.url}/notes/${id}`)).body).toMatchObject({ views: 5, tags: ['blue', 'red'] });
    expect((await http(`${b.url}/notes`)).body.map((n: { id: string }) => n.id)).toContain(id);
  });

  it('LIFE-13 PROTO-12: the hub stopped while A writes offline, then restarted on its port: all converge with no bootstrap', async () => {
    let hub = await apps.hub('hub2');
    const port = Number(new URL(hub.url).port);
    const [a, b] = [await apps.api('a2', hub.syncomUrl), await apps.api('b2', hub.syncomUrl)];
    const bootstraps: string[] = [];
    for (const s of [a, b]) s.storage.sync.on('bootstrap', (e) => bootstraps.push(e.url));
    // A write each way: both feeds are live, past the first-contact bootstraps of two fresh nodes.
    const first = (await http(`${a.url}/notes`, 'POST', { title: 'online' })).body.id;
    const second = (await http(`${b.url}/notes`, 'POST', { title: 'online too' })).body.id;
    // A node holding the other's note is past its first-contact bootstrap once it is not bootstrapping.
    const settled = (s: typeof a) => s.storage.sync.peers()[0]?.bootstrapping === false;
    await until(async () => (await b.storage.has(first)) && (await a.storage.has(second)) && settled(a) && settled(b), [a.storage, b.storage]);
    bootstraps.length = 0;

    await apps.stop(hub);
    const offline: string[] = [];
    for (let i = 0; i < 20; i++) offline.push((await http(`${a.url}/notes`, 'POST', { title: `offline ${i}` })).body.id);
    hub = await apps.hub('hub2', { port });
    await until(async () => (await Promise.all(offline.map((id) => b.storage.has(id)))).every(Boolean), [b.storage]);
    expect((await b.storage.list()).length).toBe(22);
    expect(bootstraps).toEqual([]);
  });

  it('HOST-3: a wrong token is refused at hello (401 UNAUTHORIZED) and nothing syncs', async () => {
    const hub = await apps.hub('hub3');
    const errors: { code: string; status?: number }[] = [];
    const bad = await apps.api('bad', hub.syncomUrl, 'wrong');
    await new Promise<void>((resolve) => bad.storage.sync.on('error', (e) => { errors.push(e); resolve(); }));
    expect(errors[0]).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(hub.storage.sync.hosted()).toEqual([]);
  });

  it('SYNCOM_HUB decides what a restarted node dials: unset, the hub of its earlier run is disabled (no dialer, local only); set to another hub, only that one; set back, the first resumes', async () => {
    const [h1, h2] = [await apps.hub('hub5'), await apps.hub('hub6')];
    let a = await apps.api('a5', h1.syncomUrl);
    await until(() => a.storage.sync.peers()[0]?.connected === true, [a.storage]);
    await apps.stop(a);

    // Restarted without SYNCOM_HUB: the registry still holds hub5, which had been dialed, its notes pushed there.
    a = await apps.local('a5');
    expect(a.storage.sync.peers()).toEqual([]);
    expect((await http(`${a.url}/sync/peers`)).body.nodes).toEqual([expect.objectContaining({ url: h1.syncomUrl, enabled: false })]);
    await apps.stop(a);

    a = await apps.api('a5', h2.syncomUrl);
    expect(a.storage.sync.peers().map((p) => p.url)).toEqual([h2.syncomUrl]);
    await apps.stop(a);

    a = await apps.api('a5', h1.syncomUrl);
    expect(a.storage.sync.peers().map((p) => p.url)).toEqual([h1.syncomUrl]);
    const nodes = a.storage.sync.listNodes().map((n) => [n.url, n.enabled]);
    expect(nodes).toEqual(expect.arrayContaining([[h1.syncomUrl, true], [h2.syncomUrl, false]]));
  });

  it('bad REST bodies get 400 with class-validator messages; an unknown note 404', async () => {
    const hub = await apps.hub('hub4');
    const a = await apps.api('a4', hub.syncomUrl);
    const res = await http(`${a.url}/notes`, 'POST', { title: 42, extra: true });
    expect(res.status).toBe(400);
    expect(res.body.message.join(' ')).toMatch(/title must be a string/);
    expect((await http(`${a.url}/notes/nope`)).status).toBe(404);
    expect((await http(`${a.url}/notes/nope/tags`, 'POST', { add: 'x' })).status).toBe(400);
  });
});

import { applyPeerOps, signOp } from 'syncom';
import { newSigningKey } from 'syncom/testing';
import { Apps, http, type Running, until } from './apps';

/** A local example-api (no hub): these answers are the REST layer's own. */
describe('example-api REST answers (e2e, HTTP on loopback)', () => {
  const apps = new Apps();
  let api: Running;
  let url: string;

  beforeAll(async () => {
    api = await apps.local('a');
    url = api.url;
  });

  afterAll(() => apps.stopAll());

  const note = async () => (await http(`${url}/notes`, 'POST', { title: 'n' })).body.id as string;

  it('every error answer has statusCode, error and message: 400, 404 and a body past the 1 MB limit (413)', async () => {
    const bad = await http(`${url}/notes`, 'POST', { title: 42 });
    expect(bad).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request' } });
    const missing = await http(`${url}/notes/nope`);
    expect(missing).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
    const big = await http(`${url}/notes`, 'POST', { title: 'x', body: 'y'.repeat(1_100_000) });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ statusCode: 413, error: 'Payload Too Large', message: expect.any(String) });
  });

  it('GET /notes answers a page: at most `limit` (1 to 500, default 500) records in id order, notes only, `after` an id (up to 512 characters); another query is refused 400', async () => {
    const ids = [await note(), await note(), await note()].sort();
    const all = (await http(`${url}/notes`)).body.map((n: { id: string }) => n.id);
    expect(all).toEqual(expect.arrayContaining(ids));
    expect([...all].sort()).toEqual(all);
    const first = (await http(`${url}/notes?limit=2`)).body.map((n: { id: string }) => n.id);
    expect(first).toEqual(all.slice(0, 2));
    const rest = (await http(`${url}/notes?limit=500&after=${encodeURIComponent(first[1])}`)).body.map((n: { id: string }) => n.id);
    expect([...first, ...rest]).toEqual(all);
    // after takes any id, up to the engine's 512 characters (a peer may write one that long).
    expect((await http(`${url}/notes?after=${'x'.repeat(512)}`)).status).toBe(200);
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'limit=0x10', 'limit=1e2', 'limit=%205', 'other=1', '__proto__=1', '__proto__%5Blimit%5D=1', 'constructor=1', 'prototype=1', 'toString=1', `after=${'x'.repeat(513)}`]) {
      expect([q, await http(`${url}/notes?${q}`)]).toMatchObject([q, { status: 400, body: { statusCode: 400, error: 'Bad Request' } }]);
    }
  });

  it('POST /notes/:id/views adds { by } (1 when the body is empty); a by that is no positive integer is refused 400', async () => {
    const id = await note();
    expect((await http(`${url}/notes/${id}/views`, 'POST')).body).toEqual({ id, views: 1 });
    expect((await http(`${url}/notes/${id}/views`, 'POST', {})).body).toEqual({ id, views: 2 });
    expect((await http(`${url}/notes/${id}/views`, 'POST', { by: 5 })).body).toEqual({ id, views: 7 });
    const noBody = await fetch(`${url}/notes/${id}/views`, { method: 'POST' });
    expect(await noBody.json()).toEqual({ id, views: 8 });
    for (const by of [0, -1, 1.5, '5', null]) {
      const res = await http(`${url}/notes/${id}/views`, 'POST', { by });
      expect(res).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request' } });
    }
    expect((await http(`${url}/notes/${id}/views`, 'POST', { by: 1, extra: 1 })).status).toBe(400);
    expect((await http(`${url}/notes/${id}`)).body.views).toBe(8);
  });

  it('KIND-10 KIND-11 KIND-12: a field used as a second kind answers 409 KIND_CLASH naming the right call', async () => {
    const id = await note();
    await http(`${url}/notes/${id}/views`, 'POST');
    await http(`${url}/notes/${id}/tags`, 'POST', { add: ['a'] });
    const counter = await http(`${url}/notes/${id}`, 'PATCH', { views: 10 });
    expect(counter).toMatchObject({ status: 409, body: { statusCode: 409, error: 'Conflict', code: 'KIND_CLASH' } });
    expect(counter.body.message).toMatch(/views is a counter; use inc\(\)/);
    const set = await http(`${url}/notes/${id}`, 'PATCH', { tags: ['b'] });
    expect(set).toMatchObject({ status: 409, body: { code: 'KIND_CLASH', message: expect.stringMatching(/tags is a set/) } });
    const other = await note();
    expect((await http(`${url}/notes/${other}`, 'PATCH', { views: 3 })).status).toBe(200);
    const register = await http(`${url}/notes/${other}/views`, 'POST');
    expect(register).toMatchObject({ status: 409, body: { code: 'KIND_CLASH', message: expect.stringMatching(/views is a register/) } });
    expect((await http(`${url}/notes/${id}`)).body).toMatchObject({ views: 1, tags: ['a'] });
  });

  it('a note a peer wrote with an id field and a foreign field answers its real id and only a note\'s fields (GET one, GET list)', async () => {
    const other = await note();
    const peer = newSigningKey();
    const id = `${peer.node}:1`;
    const data = { $type: 'Note', title: 'from a peer', id: other, admin: true };
    const op = signOp({ origin: peer.node, seq: 1, ts: Date.now(), type: 'write', id, data }, peer.key);
    // Through the JSON wire and the peer pipeline, as a hub's page lands on this node.
    const put = await applyPeerOps(api.storage, [JSON.parse(JSON.stringify(op))], { via: { url: 'memory://hub', node: peer.node } });
    expect(put.applied).toBe(1);

    const want = { id, $type: 'Note', title: 'from a peer' };
    expect((await http(`${url}/notes/${encodeURIComponent(id)}`)).body).toEqual(want);
    const listed: { id: string; title?: string }[] = (await http(`${url}/notes`)).body;
    expect(listed.filter((n) => n.title === 'from a peer')).toEqual([want]);
    expect(listed.filter((n) => n.id === other)).toHaveLength(1);
  });

  it('a JSON body nested past 32 levels is refused 400 before it is parsed (a few thousand levels had overflowed the validation pipe: 500, a stack trace logged each time)', async () => {
    for (const depth of [40, 5000]) {
      const nested = `{"title":"x","body":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const res = await fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nested });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('nests more than 32 levels') });
    }
    // Brackets inside strings are text, not nesting.
    expect((await http(`${url}/notes`, 'POST', { title: '['.repeat(100), body: '{'.repeat(1000) })).status).toBe(201);
  });

  it('a JSON body holding an object of more than 256 keys is refused 400 before it is parsed (class-transformer\'s copy in the validation pipe is quadratic in an object\'s keys)', async () => {
    const keys = Array.from({ length: 60_000 }, (_, i) => `"k${i}":${i}`).join(',');
    const res = await fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"title":"x",${keys}}` });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('more than 256 keys') });
  });

  it('PATCH refuses null for a field (absent is no change) and a views past a safe integer', async () => {
    const id = await note();
    for (const fields of [{ title: null }, { body: null }, { tags: null }, { views: null }, { views: 1e300 }, { views: 2 ** 53 }]) {
      expect(await http(`${url}/notes/${id}`, 'PATCH', fields)).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request' } });
    }
    expect((await http(`${url}/notes/${id}`)).body).toMatchObject({ title: 'n' });
  });

  it('GET /notes steps over records of other types: a page behind 129 of them still holds the note, and paging by the last id reaches every note', async () => {
    const fresh = await apps.local('paging');
    try {
      for (let i = 0; i < 129; i++) await fresh.storage.set(`a${String(i).padStart(3, '0')}`, { $type: 'Other', i });
      await fresh.storage.set('b-note', { $type: 'Note', title: 'behind the others' });
      const page = (await http(`${fresh.url}/notes?limit=10`)).body.map((n: { id: string }) => n.id);
      expect(page).toEqual(['b-note']);
    } finally {
      await apps.stop(fresh);
    }
  });

  it('GET /notes stopped on its 10,000-record bound names the last id read in X-Next-After, percent-encoded: an id no header can carry as text (a peer\'s, in Chinese) answered 500', async () => {
    const fresh = await apps.local('next-after');
    try {
      const writes = Array.from({ length: 9_999 }, (_, i) => fresh.storage.set(`a${String(i).padStart(5, '0')}`, { $type: 'Other' }));
      await Promise.all([...writes, fresh.storage.set('b笔记', { $type: 'Other' }), fresh.storage.set('c', { $type: 'Note', title: 'past the bound' })]);
      const first = await fetch(`${fresh.url}/notes`);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual([]);
      const next = first.headers.get('x-next-after');
      expect(next).toBe(encodeURIComponent('b笔记'));
      expect((await http(`${fresh.url}/notes?after=${next}`)).body).toEqual([{ id: 'c', $type: 'Note', title: 'past the bound' }]);
    } finally {
      await apps.stop(fresh);
    }
  });

  it('GET /notes stopped on its bound at an id holding a lone surrogate (a peer\'s; no percent-encoding carries one) names it as WTF-8 in X-Next-After, and ?after= takes it back exactly: it had answered 500', async () => {
    const fresh = await apps.local('next-after-lone');
    try {
      const writes = Array.from({ length: 9_999 }, (_, i) => fresh.storage.set(`a${String(i).padStart(5, '0')}`, { $type: 'Other' }));
      // 'b\uD800' is the 10,000th id; 'b\uD800x' and 'b\uFFFD' sort after it, and a cursor read as U+FFFD would have skipped the first.
      await Promise.all([...writes, fresh.storage.set('b\uD800', { $type: 'Other' }), fresh.storage.set('b\uD800x', { $type: 'Note', title: 'one' }), fresh.storage.set('b\uFFFD', { $type: 'Note', title: 'two' })]);
      const first = await fetch(`${fresh.url}/notes`);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual([]);
      const next = first.headers.get('x-next-after');
      expect(next).toBe('b%ED%A0%80');
      const ids = (await http(`${fresh.url}/notes?after=${next}`)).body.map((n: { id: string }) => n.id);
      expect(ids).toEqual(['b\uD800x', 'b\uFFFD']);
    } finally {
      await apps.stop(fresh);
    }
  });

  it('GET /sync/peers answers no credential: urls lose their user info and query, as the logs do, the last error\'s url and message too, and the token is left out', async () => {
    const hub = await apps.hub('credentials-hub', { tokens: ['t'] });
    const port = new URL(hub.url).port;
    // A token the hub refuses (401): the error's url is the dialed one, credentials and all.
    const dialing = await apps.api('credentials', `http://alice:s3cret@127.0.0.1:${port}/syncom?apikey=LEAKED`, 'tok-secret');
    try {
      await until(() => dialing.storage.sync.peers()[0]?.lastError?.url !== undefined, [dialing.storage]);
      const res = await http(`${dialing.url}/sync/peers`);
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body);
      for (const secret of ['s3cret', 'alice', 'LEAKED', 'tok-secret']) expect(text).not.toContain(secret);
      expect(res.body.nodes[0].url).toBe(`http://127.0.0.1:${port}/syncom`);
      expect(res.body.peers[0].lastError).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: expect.any(String), url: `http://127.0.0.1:${port}/syncom` });
    } finally {
      await apps.stop(dialing);
    }
  });
});

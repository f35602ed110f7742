import { join } from 'node:path';
import { open, type Storage } from 'syncom';
import { socketIoConnect } from 'syncom-nest';
import { http, until } from '../../example-api/test/apps';
import { scopeByField, withinScopes } from '../src/hub-access';
import { hubConfigFromEnv } from '../src/hub.config';
import { RawClient } from './raw-client';
import { type TestHub, TestHubs } from './test-hubs';

/**
 * Before, the hub had no scope function and no per-token scopes: every token
 * read and wrote everything, whatever scopes its hello named. Now a token may
 * be bound to scopes, authorize holds hello to them (401 otherwise), and a
 * record's scope in the hub is data[SYNCOM_SCOPE_FIELD] ('$type').
 */
describe('apps/hub: tokens bound to scopes (hostile, e2e)', () => {
  const hubs = new TestHubs();
  const opened: Storage[] = [];
  let hub: TestHub;
  afterAll(async () => {
    for (const s of opened) await s.close();
    await hubs.stopAll();
  });

  beforeAll(async () => {
    hub = await hubs.start('scoped', { tokens: ['full', 'doc'], tokenScopes: { doc: ['Doc'] } });
  });

  it('SYNCOM_TOKENS binds a token to scopes with `:` and `+`; a token alone (or `:*`) may claim any; a bad list names the variable, never a token', () => {
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: 't1, t2:Doc+Note ,t3:*' })).toMatchObject({ tokens: ['t1', 't2', 't3'], tokenScopes: new Map([['t2', ['Doc', 'Note']]]) });
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: 't1' })).not.toHaveProperty('tokenScopes');
    // Items and scopes are trimmed, empty scopes dropped, case kept; '*' among scopes unbinds the token.
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: ' a , b : Doc ++note' })).toMatchObject({ tokens: ['a', 'b'], tokenScopes: new Map([['b', ['Doc', 'note']]]) });
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: 'b:Doc+*' })).not.toHaveProperty('tokenScopes');
    for (const bad of ['secret-one:', 'secret-one,secret-one:Doc', ':Doc']) {
      const thrown = (() => { try { hubConfigFromEnv({ SYNCOM_TOKENS: bad }); } catch (e) { return e as Error; } })();
      expect(thrown?.message).toMatch(/^SYNCOM_TOKENS: item \d/);
      expect(thrown?.message).not.toContain('secret-one');
    }
  });

  it('SCOPE-26: a token bound to a scope no hello can name (a "<", a control character, past 128 characters) is refused HUB_CONFIG naming the item\'s place: that token could never greet (every hello 400)', () => {
    const bad = [['secret-one:Doc<x', 1, 1], [`full,secret-one:Doc+${'x'.repeat(129)}`, 2, 2], ['full,other,secret-one:No\u0001te', 3, 1]] as const;
    for (const [tokens, item, scope] of bad) {
      const thrown = (() => { try { hubConfigFromEnv({ SYNCOM_TOKENS: tokens }); } catch (e) { return e as Error & { code?: string; variable?: string }; } })();
      expect(thrown).toMatchObject({ code: 'HUB_CONFIG', variable: 'SYNCOM_TOKENS' });
      expect(thrown?.message).toBe(`SYNCOM_TOKENS: item ${item} binds a scope (its scope ${scope}) that no hello can name: a scope name is 1-128 characters without '<' or control characters`);
      expect(thrown?.message).not.toContain('secret-one');
    }
    // What a hello can name passes: '@' (an e-mail address), 128 characters.
    expect(hubConfigFromEnv({ SYNCOM_TOKENS: `t:team@example.com+${'x'.repeat(128)}` }).tokenScopes).toEqual(new Map([['t', ['team@example.com', 'x'.repeat(128)]]]));
  });

  it('SYNCOM_SCOPE_FIELD: a record\'s scope is data[field] when a non-empty string, else \'*\' (default field $type)', () => {
    const scope = scopeByField('$type');
    expect([scope('a', { $type: 'Doc' }), scope('b', { $type: '' }), scope('c', { $type: 3 }), scope('d', {})]).toEqual(['Doc', '*', '*', '*']);
    expect(hubConfigFromEnv({}).scopeField).toBe('$type');
    expect(hubConfigFromEnv({ SYNCOM_SCOPE_FIELD: 'kind' }).scopeField).toBe('kind');
    expect([withinScopes(['Doc'], ['Doc', 'Note']), withinScopes(['*'], ['Doc']), withinScopes(['Doc', 'Task'], ['Doc']), withinScopes(['*'], undefined)])
      .toEqual([true, false, false, true]);
  });

  it('SCOPE-14: the example-api writes through a hub whose tokens are bound to scopes (exact scopes): it places its notes by the hub\'s rule (scopeByField), where every write it scoped \'*\' had been refused OUT_OF_SCOPE', async () => {
    const api = await hubs.apps.api('api-scoped', hub.syncomUrl, 'full');
    const { status, body } = await http(`${api.url}/notes`, 'POST', { title: 'through a scoped hub', body: '' });
    expect(status).toBe(201);
    await until(async () => (await hub.storage.get(body.id as string)) !== undefined, [api.storage, hub.storage]);
    expect(hub.storage.scopes.get(body.id as string)).toBe('Note');
  });

  it('SCOPE-26, HOST-3: a hello claiming more than its token\'s scopes, or other ones spelt alike, is refused; within them it passes; a socket cannot greet with another token', async () => {
    const client = await RawClient.connect(hub.syncomUrl, 'doc');
    for (const scopes of [['*'], ['Doc', 'Note'], ['Note']]) {
      expect(await client.hello(scopes, 'doc')).toEqual({ ok: false, error: expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 }) });
    }
    expect(await client.hello(['*'], 'full')).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    // Claims are held to the token's scopes exactly: another case, a padded name, a lookalike (Cyrillic о), none, a missing list.
    for (const scopes of [['doc'], ['Doc '], ['D\u043ec'], []]) {
      expect([scopes, await client.hello(scopes, 'doc')]).toEqual([scopes, expect.objectContaining({ ok: false, error: expect.objectContaining({ status: expect.any(Number) }) })]);
    }
    expect(await client.call('hello', { node: client.node, vector: {}, epoch: 'raw', schema: null, token: 'doc' })).toMatchObject({ ok: false });
    expect(await client.hello(['Doc'], 'doc')).toMatchObject({ ok: true });
    client.close();
    const full = await RawClient.connect(hub.syncomUrl, 'full');
    expect(await full.hello(['*'], 'full')).toMatchObject({ ok: true });
    full.close();
  });

  it('SCOPE-12, SCOPE-17, SCOPE-22: a Doc token cannot write Note records (outOfScope) nor ask for them (403 SCOPES)', async () => {
    const client = await RawClient.connect(hub.syncomUrl, 'doc');
    expect(await client.hello(['Doc'], 'doc')).toMatchObject({ ok: true });
    const ts = Date.now();
    const declared = client.signed({ seq: 1, ts, type: 'write', id: 'note-declared', scope: 'Note', data: { $type: 'Note', title: 'x' } });
    const global = client.signed({ seq: 1, ts, type: 'write', id: 'note-as-global', data: { $type: 'Note', title: 'y' } });
    for (const op of [declared, global]) expect(await client.push([op])).toMatchObject({ ok: true, value: { applied: 0, outOfScope: 1 } });
    expect(await hub.storage.has('note-declared')).toBe(false);
    expect(await hub.storage.has('note-as-global')).toBe(false);
    expect(await client.call('snapshot', { scopes: ['Note'] })).toMatchObject({ ok: false, error: { code: 'SCOPES', status: 403 } });
    const doc = client.signed({ seq: 1, ts, type: 'write', id: 'doc-by-client', scope: 'Doc', data: { $type: 'Doc', title: 'z' } });
    expect(await client.push([doc])).toMatchObject({ ok: true, value: { applied: 1, outOfScope: 0 } });
    client.close();
  });

  it('SCOPE-12, SCOPE-20: once a token is bound to scopes, even a full token\'s op must declare the hub\'s scope of its record: a Note written as global is refused, so no Doc feed can get it', async () => {
    const client = await RawClient.connect(hub.syncomUrl, 'full');
    expect(await client.hello(['*'], 'full')).toMatchObject({ ok: true });
    const ts = Date.now();
    const global = client.signed({ seq: 1, ts, type: 'write', id: 'note-full-as-global', data: { $type: 'Note', title: 'leak?' } });
    expect(await client.push([global])).toMatchObject({ ok: true, value: { applied: 0, outOfScope: 1 } });
    const declared = client.signed({ seq: 1, ts, type: 'write', id: 'note-full', scope: 'Note', data: { $type: 'Note', title: 'ok' } });
    expect(await client.push([declared])).toMatchObject({ ok: true, value: { applied: 1, outOfScope: 0 } });
    expect(await hub.storage.has('note-full-as-global')).toBe(false);
    client.close();
  });

  it('SCOPE-3, SCOPE-20: a node dialing with the Doc token gets Doc and global records, by snapshot and by its feed, and never a Note', async () => {
    const s = hub.storage;
    const [note1, doc1, global1] = [await s.insert({ $type: 'Note', title: 'n1' }), await s.insert({ $type: 'Doc', title: 'd1' }), await s.insert({ title: 'g1' })];
    const scope = scopeByField('$type');
    const node = await open({ path: join(hubs.apps.dir, 'doc-node'), sync: { connect: socketIoConnect({ reconnectionDelay: 50, reconnectionDelayMax: 200 }), scope } });
    opened.push(node);
    await node.sync.addNode({ url: hub.syncomUrl, token: 'doc', scopes: ['Doc'] });
    await until(async () => (await node.has(doc1)) && (await node.has(global1)), [node, s]);
    expect(await node.has(note1)).toBe(false);
    // Through the feed now: the Note is logged before the Doc, so the Doc arriving means the Note was passed over.
    const note2 = await s.insert({ $type: 'Note', title: 'n2' });
    const doc2 = await s.insert({ $type: 'Doc', title: 'd2' });
    await until(() => node.has(doc2), [node, s]);
    expect(await node.has(note2)).toBe(false);
    expect((await node.list()).map((r) => r.data.$type ?? '*').sort()).not.toContain('Note');
  });
});

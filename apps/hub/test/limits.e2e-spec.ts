import { join } from 'node:path';
import type { Socket } from 'socket.io';
import { io } from 'socket.io-client';
import { formatEventId, open } from 'syncom';
import { SyncomGateway, socketIoConnect } from 'syncom-nest';
import { until } from '../../example-api/test/apps';
import { HUB_LIMITS, hubConfigFromEnv } from '../src/hub.config';
import { HUB_SEGMENT_OPS } from '../src/hub.module';
import { RawClient, refusalOf } from './raw-client';
import { type TestHub, TestHubs } from './test-hubs';

const MiB = 1024 * 1024;

/** Resolves once the hub saw `client`'s socket go (its cap slot is free again). */
function goneAtHub(hub: TestHub, client: RawClient): Promise<void> {
  const server = hub.app.get(SyncomGateway).server!;
  const socket = server.sockets.get(client.socket.id!) as Socket;
  return new Promise((resolve) => {
    socket.once('disconnect', () => resolve());
    client.close();
  });
}

/** Before, the hub app set no push limits and capped no sockets: a 5,000-op push was taken. */
describe('apps/hub: limits (hostile, e2e)', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  it('the limits default to 500 ops and 4 MiB per push, 2000 ops/s, 100 purges/s, pages of 500 and 4 MiB, 16 frames and 64 MiB in flight, 32 sockets per token, 8 feeds per socket, 64 KiB before a hello, 10,000 connections, half-sent messages to the gateway default; each has its variable', () => {
    expect(HUB_LIMITS).toEqual({
      opsPerPush: 500, bytesPerPush: 4 * MiB, opsPerSecond: 2000, purgesPerSecond: 100, pageSize: 500, pageBytes: 4 * MiB, maxInFlightFrames: 16,
      socketsPerToken: 32, feedsPerSocket: 8, inFlightBytes: 64 * MiB, preAuthBytes: 64 * 1024, maxConnections: 10_000,
    });
    expect(hubConfigFromEnv({}).limits).toEqual(HUB_LIMITS);
    const env = {
      SYNCOM_OPS_PER_PUSH: '100', SYNCOM_BYTES_PER_PUSH: '65536', SYNCOM_OPS_PER_SECOND: '0', SYNCOM_PAGE_SIZE: '50', SYNCOM_PAGE_BYTES: '131072',
      SYNCOM_MAX_IN_FLIGHT_FRAMES: '4', SYNCOM_SOCKETS_PER_TOKEN: '3', SYNCOM_FEEDS_PER_SOCKET: '2', SYNCOM_IN_FLIGHT_BYTES: '1048576',
      SYNCOM_PRE_AUTH_BYTES: '262144', SYNCOM_PURGES_PER_SECOND: '0', SYNCOM_MAX_CONNECTIONS: '0', SYNCOM_MAX_INBOUND_BYTES: '1048576',
    };
    expect(hubConfigFromEnv(env).limits).toEqual({
      opsPerPush: 100, bytesPerPush: 65536, opsPerSecond: 0, purgesPerSecond: 0, pageSize: 50, pageBytes: 131072, maxInFlightFrames: 4, socketsPerToken: 3,
      feedsPerSocket: 2, inFlightBytes: MiB, preAuthBytes: 256 * 1024, maxConnections: 0, inboundBytes: MiB,
    });
  });

  it('HOST-10: by default a push of 5,000 ops is refused with 413 OPS_PER_PUSH, and nothing of it is applied', async () => {
    const hub = await hubs.start('ops-per-push');
    const client = await RawClient.connect(hub.syncomUrl, 't');
    expect(await client.hello(['*'], 't')).toMatchObject({ ok: true });
    const ops = Array.from({ length: 5000 }, (_, i) => client.signed({ seq: i + 1, ts: Date.now(), type: 'write', id: `big-${i}`, data: { n: i } }));
    expect(await client.push(ops)).toEqual({ ok: false, error: expect.objectContaining({ code: 'OPS_PER_PUSH', status: 413 }) });
    expect(await client.push(ops.slice(0, 500))).toMatchObject({ ok: true, value: { applied: 500 } });
    client.close();
    expect(hub.storage.replica.vector[client.node]).toBe(500);
  });

  it('LOG-4: the hub seals a log segment once its batches hold 2,048 ops (HUB_SEGMENT_OPS), not 64 batches later: what a purge rewrites of the log stays bounded', async () => {
    expect(HUB_SEGMENT_OPS).toBe(2048);
    // No rate limit: 2,500 ops pushed back to back pass 2,000 a second on a quiet machine, and the segment is what is tested here.
    const hub = await hubs.start('segments', { limits: { opsPerSecond: 0 } });
    const sealed = new Promise<unknown>((resolve) => hub.storage.on('log', (e) => { if (e.kind === 'seal') resolve(e.sealed); }));
    const client = await RawClient.connect(hub.syncomUrl, 't');
    expect(await client.hello(['*'], 't')).toMatchObject({ ok: true });
    // Five pushes of 500 ops, one batch each: the fifth takes the open batches past 2,048 ops.
    for (let b = 0; b < 5; b++) {
      const ops = Array.from({ length: 500 }, (_, i) => client.signed({ seq: b * 500 + i + 1, ts: Date.now(), type: 'write', id: `s-${b}-${i}`, data: { n: i } }));
      expect(await client.push(ops)).toMatchObject({ ok: true, value: { applied: 500 } });
    }
    expect(await sealed).toEqual({ from: 1, to: 2500 });
    client.close();
  });

  it('SYNCOM_PURGES_PER_SECOND: a token\'s purges beyond its rate are refused 429 PURGES_PER_SECOND (a purge rewrites the files holding its record); a larger push passes on a full bucket; writes go on', async () => {
    const hub = await hubs.start('purges', { limits: { purgesPerSecond: 2 } });
    const client = await RawClient.connect(hub.syncomUrl, 't');
    expect(await client.hello(['*'], 't')).toMatchObject({ ok: true });
    let seq = 0;
    const op = (type: 'write' | 'purge', id: string) => client.signed({ seq: ++seq, ts: Date.now(), type, id, ...(type === 'write' && { data: { id } }) });
    expect(await client.push(['a', 'b', 'c', 'd'].map((id) => op('write', id)))).toMatchObject({ ok: true, value: { applied: 4 } });
    expect(await client.push(['a', 'b', 'c'].map((id) => op('purge', id)))).toMatchObject({ ok: true, value: { applied: 3 } });
    expect(await client.push([op('purge', 'd')])).toEqual({ ok: false, error: expect.objectContaining({ code: 'PURGES_PER_SECOND', status: 429 }) });
    seq--;
    expect(await client.push([op('write', 'e')])).toMatchObject({ ok: true, value: { applied: 1 } });
    client.close();
    expect(await hub.storage.get('a')).toBeUndefined();
    expect(await hub.storage.get('d')).toMatchObject({ id: 'd' });
  });

  it('HOST-10 HOST-21: a push sent right behind its hello, before hello\'s answer, is refused and never applied; sent again once greeted it is held to opsPerPush (413)', async () => {
    const hub = await hubs.start('pipelined', { limits: { opsPerPush: 5 } });
    const client = await RawClient.connect(hub.syncomUrl, 't');
    const ops = Array.from({ length: 50 }, (_, i) => client.signed({ seq: i + 1, ts: Date.now(), type: 'write', id: `p-${i}`, data: { n: i } }));
    // The limits guard reads the socket's node, set only once the unit's hello resolved: the push must not slip past it meanwhile.
    const hello = client.hello(['*'], 't');
    const push = client.push(ops);
    expect(await hello).toMatchObject({ ok: true });
    expect(await push).toMatchObject({ ok: false, error: { status: expect.any(Number) } });
    expect(await client.push(ops)).toMatchObject({ ok: false, error: { code: 'OPS_PER_PUSH', status: 413 } });
    client.close();
    expect(hub.storage.replica.vector[client.node] ?? 0).toBe(0);
    expect(await hub.storage.get('p-0')).toBeUndefined();
  });

  it('HOST-12 SYNCOM_PURGES_PER_SECOND: the purge bucket is the token\'s, not the session\'s: a hello before each purge push does not fill it again', async () => {
    const hub = await hubs.start('rehello-purges', { limits: { purgesPerSecond: 1, opsPerSecond: 0 } });
    const client = await RawClient.connect(hub.syncomUrl, 't');
    const started = Date.now();
    expect(await client.hello(['*'], 't')).toMatchObject({ ok: true });
    let seq = 0;
    const ids = Array.from({ length: 20 }, (_, i) => `r-${i}`);
    expect(await client.push(ids.map((id) => client.signed({ seq: ++seq, ts: Date.now(), type: 'write', id, data: { id } })))).toMatchObject({ ok: true, value: { applied: 20 } });
    let applied = 0;
    const refusals = new Set<string>();
    for (const id of ids) {
      expect(await client.hello(['*'], 't')).toMatchObject({ ok: true });
      const a = await client.push([client.signed({ seq: ++seq, ts: Date.now(), type: 'purge', id })]);
      if (a.ok) {
        applied += (a.value as { applied: number }).applied;
      } else {
        refusals.add(a.error.code);
        // Nothing of a refused push is taken: its seq is free again.
        seq--;
      }
    }
    client.close();
    // A bucket of one purge, refilled one a second from the first hello: whatever this run's pace, at most that many passed.
    const allowed = 1 + Math.ceil((Date.now() - started) / 1000);
    expect(applied).toBeGreaterThanOrEqual(1);
    expect(applied).toBeLessThanOrEqual(Math.min(allowed, ids.length));
    if (applied < ids.length) expect([...refusals]).toEqual(['PURGES_PER_SECOND']);
    expect((await Promise.all(ids.map((id) => hub.storage.get(id)))).filter((r) => r === undefined)).toHaveLength(applied);
  });

  it('SYNCOM_SOCKETS_PER_TOKEN: the socket over the cap is refused at the handshake (429 SOCKETS_PER_TOKEN); other tokens are not affected; a freed slot is taken again', async () => {
    const hub = await hubs.start('sockets', { tokens: ['t', 'u'], limits: { socketsPerToken: 2 } });
    const held = [await RawClient.connect(hub.syncomUrl, 't'), await RawClient.connect(hub.syncomUrl, 't')];
    const refused = await refusalOf(hub.syncomUrl, 't');
    expect(refused?.data).toEqual({ code: 'SOCKETS_PER_TOKEN', status: 429, message: expect.stringContaining('SYNCOM_SOCKETS_PER_TOKEN') });
    expect(await refusalOf(hub.syncomUrl, 'u')).toBeUndefined();
    await goneAtHub(hub, held[0]);
    const again = await RawClient.connect(hub.syncomUrl, 't');
    expect(await refusalOf(hub.syncomUrl, 't')).toBeDefined();
    for (const c of [again, held[1]]) c.close();
  });

  it('SYNCOM_SOCKETS_PER_TOKEN: a dialer refused at the cap says why and dials again, backed off, so it gets in once a slot frees (it stayed out for good)', async () => {
    const hub = await hubs.start('cap-redial', { limits: { socketsPerToken: 1 } });
    const held = await RawClient.connect(hub.syncomUrl, 't');
    const node = await open({ path: join(hubs.apps.dir, 'cap-node'), sync: { connect: socketIoConnect({ reconnectionDelay: 50, reconnectionDelayMax: 200 }) } });
    try {
      const errors: string[] = [];
      node.sync.on('error', (e) => errors.push(e.code));
      await node.sync.addNode({ url: hub.syncomUrl, token: 't' });
      await until(() => errors.includes('SOCKETS_PER_TOKEN'), [node, hub.storage]);
      await goneAtHub(hub, held);
      const id = await node.insert({ after: 'the slot freed' });
      await until(async () => (await hub.storage.get(id)) !== undefined, [node, hub.storage]);
    } finally {
      await node.close();
    }
  }, 30_000);

  it('SYNCOM_FEEDS_PER_SOCKET: a socket\'s feed over the cap is refused 429 TOO_MANY_FEEDS', async () => {
    const hub = await hubs.start('feeds', { limits: { feedsPerSocket: 2 } });
    const client = await RawClient.connect(hub.syncomUrl, 't');
    const hello = await client.hello(['*'], 't');
    const epoch = (hello as { value: { epoch: string } }).value.epoch;
    const feed = (sub: string) => client.call('changes', { sub, lastEventId: formatEventId(epoch, 0) });
    expect([await feed('a'), await feed('b')]).toEqual([{ ok: true, value: null }, { ok: true, value: null }]);
    expect(await feed('c')).toEqual({ ok: false, error: expect.objectContaining({ code: 'TOO_MANY_FEEDS', status: 429 }) });
    client.close();
  });

  it('with tokens, a socket whose handshake carries no token, a wrong one, one padded or in another case, or one in the query string rather than auth, never connects (401 UNAUTHORIZED)', async () => {
    const hub = await hubs.start('no-token', { tokens: ['secret-token'] });
    for (const token of [undefined, 'wrong', ' secret-token', 'SECRET-TOKEN', 'constructor', '__proto__']) {
      expect((await refusalOf(hub.syncomUrl, token))?.data).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    }
    const inQuery = await new Promise<{ data?: { code?: string } }>((resolve) => {
      const s = io(hub.syncomUrl, { transports: ['websocket'], forceNew: true, reconnection: false, query: { token: 'secret-token' } });
      s.once('connect', () => { s.close(); resolve({}); });
      s.once('connect_error', (e) => { s.close(); resolve(e as never); });
    });
    expect(inQuery).toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    expect(await refusalOf(hub.syncomUrl, 'secret-token')).toBeUndefined();
  });
});

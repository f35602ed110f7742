import type { Socket as ClientSocket } from 'socket.io-client';
import type { Storage } from 'syncom';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { startHub, type TestHub } from '../helpers/hub';
import { until } from '../helpers/until';

const HELLO = { node: 'raw-node', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
const badRequest = { ok: false, error: { code: 'BAD_REQUEST', status: 400, message: expect.any(String) } };

/** The next `exception` event of a socket. */
const nextException = (socket: ClientSocket) => new Promise<unknown>((resolve) => socket.once('exception', resolve));

describe('envelopes at the socket.io gateway', () => {
  let hub: TestHub;
  const storages: Storage[] = [];
  const sockets: ClientSocket[] = [];

  beforeEach(async () => {
    hub = await startHub({ options: { authorize: (_ctx, hello) => hello.token !== 'wrong' } });
  });

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.disconnect();
    for (const s of storages.splice(0)) await s.close();
    await hub.close();
  });

  async function raw(): Promise<ClientSocket> {
    const socket = await rawSocket(hub.url);
    sockets.push(socket);
    return socket;
  }

  it('malformed envelopes get 400 BAD_REQUEST on their ack, each message on its own', async () => {
    const socket = await raw();
    const ask = (event: string, ...args: unknown[]) => socket.timeout(5000).emitWithAck(event, ...args);
    expect(await ask('hello', 'garbage')).toEqual(badRequest);
    expect(await ask('hello')).toEqual(badRequest);
    expect(await ask('hello', [HELLO])).toEqual(badRequest);
    expect(await ask('hello', { ...HELLO, node: 42 })).toEqual(badRequest);
    expect(await ask('hello', { ...HELLO, schema: { version: 'one' } })).toEqual(badRequest);
    expect(await ask('hello', HELLO, 'a second argument')).toEqual(badRequest);
    expect(await ask('hello', HELLO)).toMatchObject({ ok: true });
    expect(await ask('push', { ops: 'not an array' })).toEqual(badRequest);
    expect(await ask('push', null)).toEqual(badRequest);
    expect(await ask('snapshot', { offset: -1 })).toEqual(badRequest);
    expect(await ask('changes', { sub: 5 })).toEqual(badRequest);
    expect(await ask('changes', { sub: 's', args: 'all' })).toEqual(badRequest);
    expect(await ask('unsubscribe', {})).toEqual(badRequest);
    expect(await ask('chunk', { stream: '' })).toEqual(badRequest);
    expect(await ask('push', { ops: [] })).toMatchObject({ ok: true });
  });

  it('a message without an ack is refused as an exception event, and does nothing', async () => {
    const socket = await raw();
    const refused = nextException(socket);
    socket.emit('hello', HELLO);
    expect(await refused).toEqual(badRequest);
    // That hello never ran: the socket still has no session.
    expect(await socket.timeout(5000).emitWithAck('push', { ops: [] })).toMatchObject({ ok: false, error: { status: 428 } });
    const garbage = nextException(socket);
    socket.emit('push', 'garbage');
    expect(await garbage).toEqual(badRequest);
  });

  it("pins the filter's ack behaviour: a guard's refusal answers on the ack, not only as an exception event", async () => {
    const socket = await raw();
    const exceptions: unknown[] = [];
    socket.on('exception', (e) => exceptions.push(e));
    const answer = await socket.timeout(2000).emitWithAck('hello', { ...HELLO, token: 'wrong' });
    expect(answer).toEqual({ ok: false, error: { code: 'UNAUTHORIZED', status: 401, message: expect.any(String) } });
    // A round trip later no `exception` event came: the one answer went on the ack.
    await socket.timeout(2000).emitWithAck('hello', HELLO);
    expect(exceptions).toEqual([]);
  });

  it('garbage on one socket leaves the gateway serving another client', async () => {
    const bad = await raw();
    for (const junk of [undefined, 1, 'x', [], [1, 2], { ops: {} }, { sub: null }]) {
      bad.emit('push', junk);
      bad.emit('changes', junk);
      await bad.timeout(5000).emitWithAck('hello', junk);
    }
    const a = await socketDialer();
    storages.push(a.storage);
    await a.storage.sync.addNode({ url: hub.url });
    const id = await a.storage.insert({ fine: true });
    await until(async () => (await hub.storage.get(id)) !== undefined, [hub.storage, a.storage], 'the write at the hub');
    expect(bad.connected).toBe(true);
  });

  it('ops stay opaque to the envelope checks: nested keys named constructor, prototype and __proto__ arrive signed and intact', async () => {
    const refused: unknown[] = [];
    hub.storage.sync.on('refused', (e) => refused.push(e));
    const a = await socketDialer();
    storages.push(a.storage);
    await a.storage.sync.addNode({ url: hub.url });
    const data = JSON.parse('{"title":"t","nested":{"constructor":"c","prototype":{"p":1},"__proto__":{"x":1}},"list":[{"constructor":2}]}') as Record<string, unknown>;
    const id = await a.storage.insert(data);
    await until(async () => (await hub.storage.get(id)) !== undefined, [hub.storage, a.storage], 'the write at the hub');
    const atHub = (await hub.storage.get(id)) as { nested: object };
    expect(JSON.stringify(atHub)).toBe(JSON.stringify(await a.storage.get(id)));
    expect(Object.keys(atHub.nested)).toEqual(['constructor', 'prototype', '__proto__']);
    expect(refused).toEqual([]);
  });
});

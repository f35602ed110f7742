import type { Socket as ServerSocket } from 'socket.io';
import type { Socket as ClientSocket } from 'socket.io-client';
import type { Storage } from 'syncom';
import { DEFAULT_MAX_MESSAGE_BYTES, ENVELOPE_HEADROOM, messageLimitOf, peerOf } from '../../src/gateway';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { type TestHub } from '../helpers/hub';
import { gatewayFixture } from '../helpers/fixture';
import { SignedWriter } from '../helpers/signed-writer';
import { until } from '../helpers/until';

const HELLO = { node: 'raw-node', vector: {}, epoch: 'e', schema: null, scopes: ['Doc', 'Note'] };

describe('rooms and message size at the socket.io gateway', () => {
  let hub: TestHub | undefined;
  const { storages, sockets, startHub } = gatewayFixture();

  async function raw(h: TestHub): Promise<ClientSocket> {
    const socket = await rawSocket(h.url);
    sockets.push(socket);
    return socket;
  }

  const inRoom = async (h: TestHub, room: string) => (await h.namespace().in(room).fetchSockets()).map((s) => s.id);

  /** A live feed's envelope: from the hub log's head (a feed without an event id ends at its bootstrap notice). */
  const live = (h: TestHub, sub: string) => ({ sub, lastEventId: h.storage.replica.eventId(h.storage.replica.head) });

  it('SCOPE-10 a subscriber joins syncom:<scope> for each scope of its hello, and leaves with its last feed', async () => {
    hub = await startHub();
    const socket = await raw(hub);
    await socket.timeout(5000).emitWithAck('hello', HELLO);
    expect(await inRoom(hub, 'syncom:Doc')).toEqual([]);
    await expect(socket.timeout(5000).emitWithAck('changes', live(hub, 's1'))).resolves.toEqual({ ok: true, value: null });
    expect(await inRoom(hub, 'syncom:Doc')).toEqual([socket.id]);
    expect(await inRoom(hub, 'syncom:Note')).toEqual([socket.id]);
    const [remote] = await hub.namespace().in('syncom:Doc').fetchSockets();
    expect(remote.data).toEqual({ syncom: { node: 'raw-node', scopes: ['Doc', 'Note'] } });
    await socket.timeout(5000).emitWithAck('unsubscribe', { sub: 's1' });
    expect(await inRoom(hub, 'syncom:Doc')).toEqual([]);
  });

  /**
   * `event` handed to the gateway as socket.io hands it an arriving message, once the next feed opened on
   * `remote` is kept and before the gateway's one-macrotask wait for the unit's refusals ends: the order a
   * message read in the same turn as the changes message gets. Resolves to its answer.
   */
  function whileFeedOpens(remote: ServerSocket, event: string, body: object): Promise<unknown> {
    const peer = peerOf(remote);
    const addFeed = peer.addFeed.bind(peer);
    return new Promise((resolve) => {
      peer.addFeed = (sub, feed) => {
        peer.addFeed = addFeed;
        addFeed(sub, feed);
        (remote as unknown as { dispatch(event: unknown[]): void }).dispatch([event, body, resolve]);
      };
    });
  }

  const syncomRooms = (remote: ServerSocket) => [...remote.rooms].filter((r) => r.startsWith('syncom:'));

  it('SCOPE-10 HOST-21 a hello that comes while a feed opens leaves the socket in no room: the feed ended with the old session', async () => {
    hub = await startHub();
    const socket = await raw(hub);
    await socket.timeout(5000).emitWithAck('hello', HELLO);
    const remote = hub.namespace().sockets.get(socket.id as string) as ServerSocket;
    const ended = new Promise<unknown>((resolve) => socket.once('changes:error', resolve));
    const rehello = whileFeedOpens(remote, 'hello', { ...HELLO, scopes: ['Other'] });
    await expect(socket.timeout(5000).emitWithAck('changes', live(hub, 's1'))).resolves.toEqual({ ok: true, value: null });
    await expect(rehello).resolves.toMatchObject({ ok: true });
    expect(await ended).toMatchObject({ sub: 's1', error: { code: 'HELLO_REQUIRED', status: 428 } });
    expect([peerOf(remote).feedCount, peerOf(remote).context.scopes]).toEqual([0, ['Other']]);
    expect(syncomRooms(remote)).toEqual([]);
    // A feed of the new session joins its rooms as ever.
    await expect(socket.timeout(5000).emitWithAck('changes', live(hub, 's2'))).resolves.toEqual({ ok: true, value: null });
    expect(syncomRooms(remote)).toEqual(['syncom:Other']);
  });

  it('SCOPE-10 a feed unsubscribed while it opens leaves the socket in no room', async () => {
    hub = await startHub();
    const socket = await raw(hub);
    await socket.timeout(5000).emitWithAck('hello', HELLO);
    const remote = hub.namespace().sockets.get(socket.id as string) as ServerSocket;
    const unsubscribed = whileFeedOpens(remote, 'unsubscribe', { sub: 's1' });
    await expect(socket.timeout(5000).emitWithAck('changes', live(hub, 's1'))).resolves.toEqual({ ok: true, value: null });
    await expect(unsubscribed).resolves.toEqual({ ok: true, value: null });
    expect(peerOf(remote).feedCount).toBe(0);
    expect(syncomRooms(remote)).toEqual([]);
  });

  it('SCOPE-10 SCOPE-11 a dialer registered for scope Doc is in the room syncom:Doc (delivery stays on its feed)', async () => {
    hub = await startHub();
    const h = hub;
    const a = await socketDialer({ sync: { scope: (_id, d) => String(d.$type ?? '*') } });
    storages.push(a.storage);
    const boots: unknown[] = [];
    a.storage.sync.on('bootstrap', (e) => boots.push(e));
    await a.storage.sync.addNode({ url: h.url, scopes: ['Doc'] });
    await until(() => boots.length === 1, [a.storage], 'the bootstrap');
    const id = await h.storage.insert({ $type: 'Doc' });
    await until(async () => (await a.storage.get(id)) !== undefined, [a.storage], 'a Doc page from the live feed');
    expect(await inRoom(h, 'syncom:Doc')).toEqual([a.sockets[0].id]);
    expect(await inRoom(h, 'syncom:*')).toEqual([]);
  });

  it('maxHttpBufferSize follows limits.bytesPerPush from an async options factory: over it with headroom is a 413, beyond is dropped', async () => {
    hub = await startHub({ optionsFactory: async () => ({ limits: { bytesPerPush: 10_000 } }) });
    expect(messageLimitOf(hub.namespace())).toBe(10_000 + ENVELOPE_HEADROOM);
    const socket = await raw(hub);
    await socket.timeout(5000).emitWithAck('hello', HELLO);
    const over = await socket.timeout(5000).emitWithAck('push', { ops: ['x'.repeat(20_000)] });
    expect(over).toMatchObject({ ok: false, error: { code: 'BYTES_PER_PUSH', status: 413 } });
    const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    socket.emit('push', { ops: ['x'.repeat(200_000)] }, () => undefined);
    expect(await dropped).toBe('transport close');
  });

  it('HOST-11 a push of signed ops at bytesPerPush - 1 and at bytesPerPush is applied, one byte more is 413 (UTF-8 bytes, not characters)', async () => {
    const limit = 4096;
    hub = await startHub({ options: { limits: { bytesPerPush: limit } } });
    const socket = await raw(hub);
    const writer = new SignedWriter();
    await socket.timeout(5000).emitWithAck('hello', writer.hello());
    const bytes = (ops: unknown[]) => Buffer.byteLength(JSON.stringify(ops));
    /** The write `seq` whose push is exactly `size` bytes: padded with 'é' (two bytes, one character). */
    const sized = (seq: number, size: number) => {
      const ts = Date.now();
      const rest = size - bytes([writer.write(seq, { pad: '' }, ts)]);
      const ops = [writer.write(seq, { pad: 'é'.repeat(rest >> 1) + 'x'.repeat(rest & 1) }, ts)];
      expect(bytes(ops)).toBe(size);
      return ops;
    };
    const push = (ops: unknown[]) => socket.timeout(5000).emitWithAck('push', { ops });
    await expect(push(sized(1, limit - 1))).resolves.toMatchObject({ ok: true, value: { applied: 1 } });
    await expect(push(sized(2, limit))).resolves.toMatchObject({ ok: true, value: { applied: 1 } });
    await expect(push(sized(3, limit + 1))).resolves.toMatchObject({ ok: false, error: { code: 'BYTES_PER_PUSH', status: 413 } });
    expect(socket.connected).toBe(true);
    await expect(push(sized(3, limit))).resolves.toMatchObject({ ok: true, value: { applied: 1 } });
    expect(hub.storage.replica.vector).toEqual({ [writer.node]: 3 });
  });

  it('a bytesPerPush above socket.io default (1 MB) lets a 1.5 MB push through; without one the limit is 16 MiB', async () => {
    hub = await startHub({ optionsFactory: async () => ({ limits: { bytesPerPush: 3_000_000 } }) });
    expect(messageLimitOf(hub.namespace())).toBe(3_000_000 + ENVELOPE_HEADROOM);
    const socket = await raw(hub);
    await socket.timeout(5000).emitWithAck('hello', HELLO);
    const big = await socket.timeout(10_000).emitWithAck('push', { ops: ['x'.repeat(1_500_000)] });
    expect(big).toMatchObject({ ok: true, value: { malformed: 1 } });
    await hub.close();
    hub = await startHub();
    expect(messageLimitOf(hub.namespace())).toBe(DEFAULT_MAX_MESSAGE_BYTES);
    expect((hub.namespace().server.engine as unknown as { opts: { perMessageDeflate: unknown } }).opts.perMessageDeflate).toBe(false);
  });
});

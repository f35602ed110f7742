import { setTimeout as delay } from 'node:timers/promises';
import { applyPeerOps, unpackOps, type SyncomError } from 'syncom';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { startHub, type TestHub } from '../helpers/hub';
import { SignedWriter } from '../helpers/signed-writer';
import { until } from '../helpers/until';

/**
 * A node whose hello is over an open hub's pre-auth bytes. The gateway says
 * MESSAGE_TOO_LARGE in an `exception` notice and closes the socket; the link
 * used to drop the notice, so the dialer saw only LINK_DOWN (never reported)
 * and the link redialed after socket.io's reconnection delay, for ever: about
 * 25 connections in this test's half second with the helpers' 20 ms delay.
 */
describe('hostile: a hello over the pre-auth bytes of an open hub', () => {
  let hub: TestHub;

  beforeEach(async () => {
    hub = await startHub({ options: { access: 'public', preAuthBytes: 1024 } });
  });
  afterEach(() => hub.close());

  it('HOST-3: the dialer reports MESSAGE_TOO_LARGE (413) and backs off instead of redialing at once', async () => {
    const dialer = await socketDialer();
    try {
      let connects = 0;
      const reported = new Promise<SyncomError>((resolve) => dialer.storage.sync.on('error', (e) => e.code === 'MESSAGE_TOO_LARGE' && resolve(e)));
      // The scopes a node asks for are part of its hello (not of the handshake): 40 of them put it over the hub's 1 KiB.
      const scopes = Array.from({ length: 40 }, (_, i) => `scope-${i}-`.padEnd(40, 'x'));
      await dialer.storage.sync.addNode({ url: hub.url, scopes });
      dialer.sockets[0].on('connect', () => connects++);
      const error = await reported;
      expect(error).toMatchObject({ code: 'MESSAGE_TOO_LARGE', status: 413 });
      const after = connects;
      // Observing an absence: half a second in which the old link redialed about 25 times; a slower machine only redials less.
      await delay(500);
      expect(connects - after).toBe(0);
    } finally {
      await dialer.storage.close();
    }
  });

  it('HOST-3: a hello far over the bound, cut by the WebSocket itself (close 1009, no notice), is reported MESSAGE_TOO_LARGE and backed off too (it redialed at socket.io\'s pace, saying nothing)', async () => {
    const dialer = await socketDialer();
    try {
      let connects = 0;
      const errors: SyncomError[] = [];
      dialer.storage.sync.on('error', (e) => errors.push(e));
      // 8 KB of scopes: past the gate's notice, which answers a hello up to 1 KiB over the bound.
      const scopes = Array.from({ length: 200 }, (_, i) => `scope-${i}-`.padEnd(40, 'x'));
      await dialer.storage.sync.addNode({ url: hub.url, scopes });
      dialer.sockets[0].on('connect', () => connects++);
      await until(() => errors.some((e) => e.code === 'MESSAGE_TOO_LARGE'), [dialer.storage], 'MESSAGE_TOO_LARGE');
      const error = errors.find((e) => e.code === 'MESSAGE_TOO_LARGE') as SyncomError;
      expect(error).toMatchObject({ code: 'MESSAGE_TOO_LARGE', status: 413 });
      expect(error.message).toContain('1009');
      const after = connects;
      await delay(500);
      expect(connects - after).toBe(0);
    } finally {
      await dialer.storage.close();
    }
  });
});

/**
 * A hello carried the dialer's whole version vector, about 48 bytes per origin
 * it had seen, which the host does not read: a node that had seen 2,000
 * origins (a token holder signing with fresh keys makes that many in a
 * second) sent a 96 KB hello, over an open hub's 64 KiB before hello, and
 * could never greet it again. A hello now carries the node's own streams.
 */
describe('hostile: a node that has seen many origins greets an open hub', () => {
  let hub: TestHub;

  beforeEach(async () => {
    hub = await startHub({ options: { access: 'public' } });
  });
  afterEach(() => hub.close());

  it('HOST-3, PROTO-4: a hello of a node holding 2,000 origins fits the default pre-auth bytes, and the ops then reach the hub', async () => {
    const dialer = await socketDialer();
    try {
      const { ops } = unpackOps(Array.from({ length: 2000 }, (_, i) => new SignedWriter().write(1, { i })));
      const applied = await applyPeerOps(dialer.storage, ops, { via: { url: 'memory://elsewhere', node: 'elsewhere' } });
      expect(applied.applied).toBe(2000);
      const errors: string[] = [];
      dialer.storage.sync.on('error', (e) => errors.push(e.code));
      const own = await dialer.storage.insert({ mine: true });
      await dialer.storage.sync.addNode({ url: hub.url });
      await until(async () => errors.length > 0 || (await hub.storage.has(own)) && (await hub.storage.list()).length === 2001, [hub.storage, dialer.storage], 'every op at the hub');
      expect(errors).toEqual([]);
      const hellos = dialer.sent.filter(([event]) => event === 'hello').map(([, payload]) => payload as { vector: Record<string, number> });
      expect(hellos.length).toBeGreaterThan(0);
      const id = dialer.storage.id;
      for (const hello of hellos) expect(Object.keys(hello.vector).every((k) => k === id || k.startsWith(`${id}@`) || k.startsWith(`${id}<`))).toBe(true);
      expect(Buffer.byteLength(JSON.stringify(hellos[0]))).toBeLessThan(2048);
    } finally {
      await dialer.storage.close();
    }
  });
});

describe('a hello that names the mark of the last answer', () => {
  let hub: TestHub;

  beforeEach(async () => {
    hub = await startHub({ options: { access: 'public' } });
  });
  afterEach(() => hub.close());

  it('PROTO-4: is answered over socket.io with the vector entries changed since, which the answer says', async () => {
    const { ops } = unpackOps(Array.from({ length: 300 }, (_, i) => new SignedWriter().write(1, { i })));
    await applyPeerOps(hub.storage, ops, { via: { url: 'memory://elsewhere', node: 'elsewhere' } });
    const socket = await rawSocket(hub.url);
    try {
      const peer = new SignedWriter();
      type Answer = { ok: boolean; value: { vector: Record<string, number>; vectorMark: string; vectorSince?: string } };
      const first = (await socket.timeout(5000).emitWithAck('hello', peer.hello())) as Answer;
      expect(first.ok).toBe(true);
      expect(Object.keys(first.value.vector)).toHaveLength(300);
      expect(first.value.vectorSince).toBeUndefined();
      const id = await hub.storage.insert({ x: 1 });
      const again = (await socket.timeout(5000).emitWithAck('hello', { ...peer.hello(), vectorSince: first.value.vectorMark })) as Answer;
      expect(again.value).toMatchObject({ vectorSince: first.value.vectorMark, vector: { [hub.storage.id]: 1 } });
      expect(Object.keys(again.value.vector)).toHaveLength(1);
      expect(again.value.vectorMark).not.toBe(first.value.vectorMark);
      expect(await hub.storage.has(id)).toBe(true);
      // A mark is a short name: anything else is the envelope's 400.
      const bad = (await socket.timeout(5000).emitWithAck('hello', { ...peer.hello(), vectorSince: 'x'.repeat(200) })) as { ok: boolean; error?: { status: number } };
      expect(bad).toMatchObject({ ok: false, error: { status: 400 } });
    } finally {
      socket.close();
    }
  });
});

import { internals, newSigningKey } from 'syncom/testing';
import type { KeyObject } from 'node:crypto';
import type { Socket as ClientSocket } from 'socket.io-client';
import { packOps, signOp, type Op, type OpenOptions, type Storage } from 'syncom';
import { forgedBySmallOrder, NON_CANONICAL, SMALL_ORDER, withNonCanonicalS } from '../../../syncom/test/hostile/weak-keys';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import { memoryStorage, type TestHub } from '../helpers/hub';
import { SignedWriter } from '../helpers/signed-writer';
import { waitFor } from '../helpers/until';

/**
 * Issue 5 point 6 over real socket.io on 127.0.0.1: the hostile-input
 * catalogue of libs/syncom/test/hostile/catalogue.spec.ts, sent by raw
 * socket.io clients to the Nest gateway. The hub requires signatures and
 * scopes records by `$type`; each case asserts the answer's code (or the push
 * answer's counts), then that the hub still serves (an honest dialer's write
 * replicates over the socket.io link) and that what it held is intact.
 */

const TOKEN = 't';
const MAX_SKEW = 86_400_000;

type Answer = { ok: boolean; value?: Record<string, number>; error?: { code: string; status: number } };

/** A node identity speaking the wire by hand, signing any op it likes with a real key. */
class Peer {
  private readonly signing = newSigningKey();
  readonly key: KeyObject = this.signing.key;
  readonly id = this.signing.node;
  seq = 0;
  op(body: Partial<Op> & Pick<Op, 'type' | 'id'>, seq = ++this.seq): Op {
    return signOp({ origin: this.id, seq, ts: Date.now(), ...body } as Op, this.key);
  }
  hello(extra: Record<string, unknown> = {}) {
    return { node: this.id, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: TOKEN, ...extra };
  }
}

function deep(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('hostile-input catalogue: the gateway over socket.io', () => {
  const f = gatewayFixture();

  /** A hub requiring signatures, scoped by $type, authorizing token 't'; an honest dialer already synced with it. */
  async function setup(limits?: { bytesPerPush: number }) {
    const storage = await memoryStorage({ sync: { signatures: 'require', scope: (_id, d) => String(d.$type ?? '*') } } as Partial<OpenOptions>);
    f.storages.push(storage);
    const hub = await f.startHub({ storage, options: { authorize: (_c, h) => h.token === TOKEN, limits } });
    const d = await socketDialer();
    f.storages.push(d.storage);
    await d.storage.sync.addNode({ url: hub.url, token: TOKEN });
    for (let i = 0; i < 3; i++) await d.storage.insert({ before: i });
    await replicated(d.storage, hub.storage);
    const before = { records: await hub.storage.list(), log: hub.storage.replica.read(0).map((e) => JSON.stringify(e.op)) };
    let honest = 0;
    /** The hub still serves and lost nothing: an honest write replicates, the records and the log prefix are as they were. */
    const servesAndKept = async () => {
      const id = await d.storage.insert({ honest: ++honest });
      await replicated(d.storage, hub.storage);
      expect(await hub.storage.get(id)).toEqual({ honest });
      for (const r of before.records) expect([r.id, await hub.storage.get(r.id)]).toEqual([r.id, r.data]);
      expect(hub.storage.replica.read(0).slice(0, before.log.length).map((e) => JSON.stringify(e.op))).toEqual(before.log);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    };
    return { hub, storage, servesAndKept };
  }

  /** Resolves once `to` holds every record of `from`: re-checked at each batch `to` made durable ('apply') and each answered push. */
  function replicated(from: Storage, to: Storage): Promise<void> {
    const check = async () => {
      for (const r of await from.list()) if (!(await to.has(r.id))) return false;
      return true;
    };
    return waitFor(check, (retest) => {
      const later = () => void setImmediate(retest);
      const offs = [to.on('apply', later), to.on('change', later), from.sync.on('sync', later)];
      return () => offs.forEach((off) => off());
    }, 'the honest writes at the hub');
  }

  /** A raw socket, greeted as `peer` unless hello is null. */
  async function connect(hub: TestHub, peer: Peer, hello: Record<string, unknown> | null = {}) {
    const socket = await rawSocket(hub.url);
    f.sockets.push(socket);
    if (hello) expect(await socket.timeout(10_000).emitWithAck('hello', peer.hello(hello))).toMatchObject({ ok: true });
    const push = (ops: Op[]): Promise<Answer> => socket.timeout(20_000).emitWithAck('push', { ops: packOps(ops) });
    return { socket, push };
  }

  /**
   * Send a socket.io event as raw text on the engine.io connection (what a
   * hostile client can put in a frame) and resolve with its ack's payload.
   */
  function rawEmit(socket: ClientSocket, nsp: string, json: string): Promise<Answer> {
    const id = 900_000 + Math.floor(Math.random() * 1000);
    const engine = socket.io.engine;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no ack for the raw frame')), 20_000);
      const onPacket = (packet: { type: string; data?: unknown }) => {
        const prefix = `3${nsp},${id}`;
        if (packet.type !== 'message' || typeof packet.data !== 'string' || !packet.data.startsWith(prefix)) return;
        clearTimeout(timer);
        engine.off('packet', onPacket);
        resolve((JSON.parse(packet.data.slice(prefix.length)) as Answer[])[0]);
      };
      engine.on('packet', onPacket);
      engine.write(`2${nsp},${id}${json}`);
    });
  }

  it('GUAR-3 SIG-14: __proto__ / constructor / prototype fields and keys are malformed, nested ones are data, the pipe drops a __proto__ key from a hello vector; nothing is polluted', async () => {
    const { hub, storage, servesAndKept } = await setup();
    const p = new Peer();
    const { push, socket } = await connect(hub, p);
    const hostile = ['{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"prototype":{"polluted":1}}']
      .map((text, i) => p.op({ type: 'write', id: `proto-${i}`, data: JSON.parse(text) as Record<string, unknown> }, 1));
    const inc = p.op({ type: 'inc', id: 'proto-inc', key: '__proto__', value: 1 }, 1);
    expect(await push([...hostile, inc])).toMatchObject({ ok: true, value: { applied: 0, malformed: 4 } });
    const nested = JSON.parse('{"v":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}}') as Record<string, unknown>;
    expect(await push([p.op({ type: 'write', id: '__proto__', data: nested }, 1), p.op({ type: 'inc', id: '__proto__', key: 'toString', value: 2 }, 2)]))
      .toMatchObject({ ok: true, value: { applied: 2 } });
    expect(JSON.stringify(await storage.get('__proto__'))).toBe(JSON.stringify({ toString: 2, ...nested }));
    const vector = JSON.parse('{"__proto__":{"polluted":1}}') as object;
    // The gateway's validation pipe (class-transformer) drops __proto__ keys from the envelope before the engine sees it:
    // the hello goes through with an empty vector (the engine's checkHello, over the memory link, refuses the key: 400 BAD_HELLO).
    expect(await socket.timeout(10_000).emitWithAck('hello', p.hello({ vector }))).toMatchObject({ ok: true, value: { node: storage.id } });
    await servesAndKept();
  });

  it('GUAR-3: ids that are paths, case and Unicode variants are distinct records (no file: the hub\'s backend holds only log and record files); 513 characters is malformed', async () => {
    const { hub, storage, servesAndKept } = await setup();
    const p = new Peer();
    const { push } = await connect(hub, p);
    const ids = ['../../escape', '/etc/passwd', 'a\u0000b', 'C:\\x', 'x'.repeat(512), 'Note', 'note', '\u00e9', 'e\u0301', '\uff21', 'A'];
    expect(await push(ids.map((id, i) => p.op({ type: 'write', id, data: { i } }, i + 1)))).toMatchObject({ ok: true, value: { applied: ids.length } });
    for (const [i, id] of ids.entries()) expect([id, await storage.get(id)]).toEqual([id, { i }]);
    expect(await push([p.op({ type: 'write', id: 'y'.repeat(513), data: {} }, ids.length + 1)])).toMatchObject({ ok: true, value: { malformed: 1 } });
    await storage.replica.idle();
    const files = [...(storage.replica.backend as unknown as { files(): Map<string, string> }).files().keys()];
    for (const file of files) expect(file).toMatch(/^(format\.json|keys\/[a-z-]+\.pem|log\/open\/\d+\.json|log\/seg-\d+\.json|log\/index\.json|records\/\d+\.json)$/);
    await servesAndKept();
  });

  it('GUAR-3 HOST-11: JSON nested 100,000 deep as raw frame text: ops malformed, 413 BYTES_PER_PUSH under bytesPerPush, a hello 400; the socket stays up', async () => {
    const p = new Peer();
    const nest = '['.repeat(100_000) + ']'.repeat(100_000);
    const a = (n: number) => 'A'.repeat(n);
    const op = (seq: number) => `["${p.id}",${seq},${Date.now()},"write","deep",null,null,null,null,{"f":${nest}},null,null,null,null,null,"${a(86)}","${a(43)}","${a(22)}"]`;
    for (const limits of [undefined, { bytesPerPush: 1 << 20 }]) {
      const { hub, storage, servesAndKept } = await setup(limits);
      const { socket } = await connect(hub, p);
      const answer = await rawEmit(socket, '/syncom', `["push",{"ops":[${op(1)},${op(2)}]}]`);
      if (limits) expect(answer).toMatchObject({ ok: false, error: { code: 'BYTES_PER_PUSH', status: 413 } });
      else expect(answer).toMatchObject({ ok: true, value: { applied: 0, malformed: 2 } });
      const hello = await rawEmit(socket, '/syncom', `["hello",{"node":"${p.id}","vector":{"k":${nest}},"epoch":"e","schema":null,"scopes":["*"],"token":"t"}]`);
      // The gateway's validation pipe refuses an envelope nesting deep before class-transformer walks it.
      expect(hello).toEqual({ ok: false, error: { code: 'BAD_REQUEST', status: 400, message: expect.stringMatching(/nests deeper/) } });
      expect(socket.connected).toBe(true);
      expect(await storage.has('deep')).toBe(false);
      await servesAndKept();
    }
  });

  it('HOST-11: a 10 MB value: over bytesPerPush the frame passes maxHttpBufferSize and socket.io drops that connection; without a byte limit (16 MiB frames) it is taken; the hub serves on', async () => {
    const p = new Peer();
    const big = p.op({ type: 'write', id: 'big', data: { blob: 'x'.repeat(10 * 1024 * 1024) } });
    {
      const { hub, storage, servesAndKept } = await setup({ bytesPerPush: 1 << 20 });
      const { socket, push } = await connect(hub, p);
      const dropped = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
      await expect(push([big])).rejects.toThrow();
      expect(await dropped).toBe('transport close');
      expect(await storage.has('big')).toBe(false);
      await servesAndKept();
    }
    const { hub, storage, servesAndKept } = await setup();
    const { push } = await connect(hub, p);
    expect(await push([big])).toMatchObject({ ok: true, value: { applied: 1 } });
    expect(((await storage.get('big')) as { blob: string }).blob).toHaveLength(10 * 1024 * 1024);
    await servesAndKept();
  });

  it('GUAR-4 GUAR-5: a stamp beyond maxSkew is malformed (SKEW on the hub\'s error event) and does not move the hub\'s clock', async () => {
    const { hub, storage, servesAndKept } = await setup();
    const errors: string[] = [];
    storage.on('error', (e) => errors.push(e.code));
    const p = new Peer();
    const { push } = await connect(hub, p);
    const future = Date.now() + MAX_SKEW + 3_600_000;
    expect(await push([p.op({ type: 'write', id: 'future', data: {}, ts: future })])).toMatchObject({ ok: true, value: { applied: 0, malformed: 1 } });
    expect(errors).toEqual(['SKEW']);
    expect(internals(storage).clock.last).toBeLessThan(Date.now() + 60_000);
    await servesAndKept();
  });

  it('SIG-14 SIG-19 SIG-20 SIG-21 SIG-24: forged, stripped, small-order-key and S >= L signatures are refused; a hello from a small-order or non-canonical key, or an id that is no key, is 403 UNSIGNED', async () => {
    const { hub, storage, servesAndKept } = await setup();
    const refused: string[] = [];
    storage.sync.on('refused', (r) => refused.push(`${r.reason}:${r.count}`));
    const p = new Peer();
    const { push, socket } = await connect(hub, p);
    const op = p.op({ type: 'write', id: 'signed', data: { v: 'original' } });
    const { sig: _s, ...stripped } = op;
    expect(await push([{ ...op, data: { v: 'changed' } }])).toMatchObject({ ok: true, value: { applied: 0, forged: 1 } });
    expect(await push([stripped])).toMatchObject({ ok: true, value: { applied: 0, unsigned: 1 } });
    expect(await push([withNonCanonicalS(op)])).toMatchObject({ ok: true, value: { applied: 0, forged: 1 } });
    const weak = [...SMALL_ORDER, ...NON_CANONICAL].map((id) => forgedBySmallOrder(id, { id: `weak-${id}` }));
    expect(await push(weak)).toMatchObject({ ok: true, value: { applied: 0, forged: weak.length } });
    expect(refused).toEqual(['forged:1', 'unsigned:1', 'forged:1', `forged:${weak.length}`]);
    expect(await push([op])).toMatchObject({ ok: true, value: { applied: 1 } });
    expect(await storage.get('signed')).toEqual({ v: 'original' });
    for (const node of [...SMALL_ORDER, ...NON_CANONICAL, 'not-a-key', 'A'.repeat(43)]) {
      expect([node, await socket.timeout(10_000).emitWithAck('hello', p.hello({ node }))]).toEqual([node, { ok: false, error: expect.objectContaining({ code: 'UNSIGNED', status: 403 }) }]);
    }
    await servesAndKept();
  });

  it('GUAR-2 SCOPE-12 SCOPE-17: equivocation (the first op of a seq stands, the second is a duplicate), replays (duplicates), ops outside the peer\'s scopes (outOfScope)', async () => {
    const { hub, storage, servesAndKept } = await setup();
    const p = new Peer();
    const { push } = await connect(hub, p);
    const a = p.op({ type: 'write', id: 'equivocal', data: { says: 'a' } }, 1);
    const b = p.op({ type: 'write', id: 'equivocal', data: { says: 'b' } }, 1);
    expect(await push([a])).toMatchObject({ ok: true, value: { applied: 1 } });
    expect(await push([b])).toMatchObject({ ok: true, value: { applied: 0, duplicates: 1 } });
    expect(await push([a, b])).toMatchObject({ ok: true, value: { applied: 0, duplicates: 2 } });
    expect(await storage.get('equivocal')).toEqual({ says: 'a' });
    const honestOps = storage.replica.read(0).filter((e) => e.op.origin !== p.id).map((e) => e.op);
    expect(await push(honestOps)).toMatchObject({ ok: true, value: { applied: 0, duplicates: honestOps.length } });
    const scoped = new Peer();
    const { push: pushScoped } = await connect(hub, scoped, { scopes: ['Doc'] });
    expect(await pushScoped([scoped.op({ type: 'write', id: 's1', scope: 'Secret', data: { $type: 'Secret' } }, 1)])).toMatchObject({ ok: true, value: { applied: 0, outOfScope: 1 } });
    expect(await pushScoped([scoped.op({ type: 'write', id: 's2', data: { $type: 'Secret' } }, 1)])).toMatchObject({ ok: true, value: { applied: 0, outOfScope: 1 } });
    expect(await storage.has('s1')).toBe(false);
    expect(await storage.has('s2')).toBe(false);
    expect(storage.replica.read(0).filter((e) => e.op.origin === p.id)).toHaveLength(1);
    await servesAndKept();
  });

  it('HOST-3 HOST-21: a wrong or missing token is 401 UNAUTHORIZED, a push on a socket without a hello 428; the honest writer is untouched', async () => {
    const { hub, storage, servesAndKept } = await setup();
    const p = new Peer();
    const { socket, push } = await connect(hub, p, null);
    expect(await socket.timeout(10_000).emitWithAck('hello', p.hello({ token: 'wrong' }))).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED', status: 401 } });
    const { token: _t, ...tokenless } = p.hello();
    expect(await socket.timeout(10_000).emitWithAck('hello', tokenless)).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED', status: 401 } });
    expect(await push([p.op({ type: 'write', id: 'no-session', data: {} })])).toMatchObject({ ok: false, error: { code: 'HELLO_REQUIRED', status: 428 } });
    // A SignedWriter's honest write on a greeted socket still lands.
    const w = new SignedWriter();
    const other = await rawSocket(hub.url);
    f.sockets.push(other);
    await other.timeout(10_000).emitWithAck('hello', { ...w.hello(), token: TOKEN });
    expect(await other.timeout(10_000).emitWithAck('push', { ops: [w.write(1, { ok: true })] })).toMatchObject({ ok: true, value: { applied: 1 } });
    expect(await storage.has('no-session')).toBe(false);
    await servesAndKept();
  });
});

import { createMemoryBackend, isSyncomError, open, type Storage } from '../../src';
import { checkOp, signOp, verifyOps, type Op } from '../../src/op';
import { applyPeerOps } from '../../src/storage/peer';
import { newSigningKey } from '../../src/testing/signing-key';
import { logOps, node, ship } from '../storage/helpers';
import { isEntry } from '../../src/crdt/check-entry';

/**
 * Bad input to the API — a value JSON cannot carry, a getter or Proxy trap
 * that throws, a wrong call of applyPeerOps, a peer's number that JSON text
 * holds but canonical JSON does not — is refused with a SyncomError and a
 * stable code, and nothing of the refused call is logged or applied.
 */

const T = 1_000_000;

/** The log length and the `change` events so far: what a refused call must leave as it is. */
function footprint(s: Storage): () => { logged: number; changes: number } {
  let changes = 0;
  s.on('change', () => changes++);
  return () => ({ logged: logOps(s).length, changes });
}

/** Expect the call to reject with INVALID_ARGUMENT, and leave the log and the events as they were. */
async function refused(seen: () => { logged: number; changes: number }, call: () => Promise<unknown>): Promise<unknown> {
  const before = seen();
  const error = await call().then(() => undefined, (e: unknown) => e);
  expect(isSyncomError(error) ? error.code : error).toBe('INVALID_ARGUMENT');
  expect(seen()).toEqual(before);
  return error;
}

const INHERITED = ['toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'toLocaleString', '__defineGetter__'];

describe('API input: refused with a stable code, nothing of it taken', () => {
  it('OPS-4 KIND-1: swap() of a field named like an Object.prototype member the record lacks answers undefined and writes it', async () => {
    const { s } = await node(T);
    for (const name of INHERITED) {
      await s.set('r', { a: 1 });
      const previous = await s.swap('r', { [name]: 5 });
      expect(Object.hasOwn(previous, name) && previous[name] === undefined).toBe(true);
      expect(await s.get('r')).toEqual({ a: 1, [name]: 5 });
    }
    // Constructor stays a forbidden field name, as in update().
    await expect(s.swap('r', { constructor: 5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // A missing record: NOT_FOUND, as update() answers, not a clone failure.
    await expect(s.swap('missing', { toString: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await s.close();
  });

  it('OPS-3 OPS-4: a field really named toString reads, swaps, updates and lists as any other', async () => {
    const { s } = await node(T);
    await s.set('r', { toString: 1, hasOwnProperty: 'h' });
    expect(await s.swap('r', { toString: 2, valueOf: 3 })).toEqual({ toString: 1, valueOf: undefined });
    await s.update('r', { hasOwnProperty: 'i' });
    expect(await s.get('r')).toEqual({ hasOwnProperty: 'i', toString: 2, valueOf: 3 });
    expect((await s.list()).map((r) => r.data)).toEqual([{ hasOwnProperty: 'i', toString: 2, valueOf: 3 }]);
    await s.close();
  });

  it("OPS-4: a scope function's record view holds the record's fields only: no member of Object.prototype reads as one", async () => {
    const seen: unknown[] = [];
    const scope = (_id: string, data: Record<string, unknown>): string => {
      seen.push([data.toString, data.constructor, 'valueOf' in data, Object.keys(data)]);
      return typeof data.team === 'string' ? data.team : '*';
    };
    const { s } = await node(T, { sync: { scope } });
    await s.set('r', { team: 'a' });
    await s.set('t', { team: 'b', toString: 't' });
    seen.length = 0;
    await s.update('r', { n: 1 });
    await s.update('t', { n: 1 });
    expect(seen).toContainEqual([undefined, undefined, false, ['team', 'n']]);
    expect(seen).toContainEqual(['t', undefined, false, ['team', 'toString', 'n']]);
    expect(seen.filter((x) => (x as unknown[])[0] !== undefined && (x as unknown[])[0] !== 't')).toEqual([]);
    expect([s.scopeOf('r'), s.scopeOf('t')]).toEqual(['a', 'b']);
    await s.close();
  });

  it('a scope function that throws on a local write fails it with INVALID_ARGUMENT (the app\'s error as cause), as one that returns no scope name does; nothing is written', async () => {
    const scope = (_id: string, data: Record<string, unknown>): string => {
      if (data.legacy) throw new Error('no legacy');
      return data.bad ? (7 as unknown as string) : '*';
    };
    const { s } = await node(T, { sync: { scope } });
    await expect(s.set('a', { legacy: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('no legacy'), cause: expect.objectContaining({ message: 'no legacy' }) });
    await expect(s.set('b', { bad: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect([await s.has('a'), await s.has('b')]).toEqual([false, false]);
    await s.close();
  });

  it('SCOPE-6: delete() and purge() of a peer\'s record the scope function throws on still succeed, in the scope this node knows the record in (\'*\' where it never placed it)', async () => {
    const scope = (_id: string, data: Record<string, unknown>): string => {
      if (data.legacy) throw new Error('no legacy');
      return typeof data.team === 'string' ? data.team : '*';
    };
    const peer = await node(T);
    const { s } = await node(T, { sync: { scope } });
    await peer.s.set('r', { legacy: true });
    await peer.s.set('p', { legacy: true });
    await peer.s.set('q', { team: 'a' });
    await ship(peer.s, s);
    await peer.s.update('q', { legacy: true });
    await ship(peer.s, s, logOps(peer.s).slice(-1));
    expect([s.scopeOf('r'), s.scopeOf('q')]).toEqual(['*', 'a']);
    await s.delete('r');
    await s.delete('q');
    await s.purge('p');
    expect([await s.has('r'), await s.has('q'), await s.has('p')]).toEqual([false, false, false]);
    const own = logOps(s).filter((o) => o.origin === s.id);
    expect(own.map((o) => [o.type, o.id, o.scope ?? '*'])).toEqual([['delete', 'r', '*'], ['delete', 'q', 'a'], ['purge', 'p', '*']]);
    // A live record's other ops still ask the function, and its throw is still the caller's INVALID_ARGUMENT.
    await peer.s.set('n', { legacy: true });
    await ship(peer.s, s, logOps(peer.s).slice(-1));
    await expect(s.add('n', 'tags', ['x'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('no legacy') });
    await s.close();
    await peer.s.close();
  });

  it('OPS-6 KIND-5: add() of undefined, a symbol, a function or a BigInt (nested too) is INVALID_ARGUMENT; remove() of a BigInt too', async () => {
    const { s } = await node(T);
    await s.set('r', { a: 1 });
    await s.add('r', 'tags', ['x']);
    const seen = footprint(s);
    for (const bad of [undefined, Symbol('x'), () => 1, 10n, [10n], { n: 10n }]) {
      await refused(seen, () => s.add('r', 'tags', [bad]));
      await refused(seen, () => s.add('r', 'other', ['ok', bad]));
    }
    await refused(seen, () => s.remove('r', 'tags', [10n]));
    // A sparse array's hole is an undefined element.
    await refused(seen, () => s.add('r', 'tags', [, 1] as unknown[]));
    expect(await s.get('r')).toEqual({ a: 1, tags: ['x'] });
    await s.close();
  });

  it('OPS-3 OPS-4 OPS-6: a getter that throws, top level or nested, or a Proxy whose ownKeys throws, is INVALID_ARGUMENT with the original as cause', async () => {
    const { s } = await node(T);
    await s.set('r', { a: 1 });
    const seen = footprint(s);
    const boom = new Error('boom');
    const getter = () => Object.defineProperty({}, 'f', { enumerable: true, get() { throw boom; } }) as Record<string, unknown>;
    const ownKeys = () => new Proxy({}, { ownKeys() { throw boom; } }) as Record<string, unknown>;
    const values = [getter(), { f: getter() }, { f: [1, getter()] }, ownKeys(), { f: ownKeys() }];
    for (const data of values) {
      for (const call of [() => s.set('r', data), () => s.set('new', data), () => s.update('r', data), () => s.swap('r', data), () => s.add('r', 'tags', [data])]) {
        expect(await refused(seen, call)).toMatchObject({ cause: boom });
      }
    }
    // An element whose index getter throws.
    const elements = Object.defineProperty([1], 1, { enumerable: true, get() { throw boom; } }) as unknown[];
    await refused(seen, () => s.add('r', 'tags', elements));
    // A record handle's data, edited in place: save() reads it as update() does.
    const handle = (await s.record('r'))!;
    handle.data.big = BigInt(1);
    await refused(seen, () => handle.save());
    handle.data = getter();
    expect(await refused(seen, () => handle.save())).toMatchObject({ cause: boom });
    expect(await s.get('r')).toEqual({ a: 1 });
    expect(await s.has('new')).toBe(false);
    await s.close();
  });

  it('OPS-3 OPS-4: data whose toJSON gives no plain object of fields is INVALID_ARGUMENT, not an op peers would refuse', async () => {
    const { s } = await node(T);
    await s.set('r', { a: 1 });
    const seen = footprint(s);
    for (const answer of ['J', [1], null, undefined, JSON.parse('{"__proto__": 1}'), { constructor: 1 }]) {
      const data = { a: 2, toJSON: () => answer };
      await refused(seen, () => s.set('r', data));
      await refused(seen, () => s.update('r', data));
    }
    await s.set('r', { a: 2, toJSON: () => ({ b: 3 }) });
    expect(await s.get('r')).toEqual({ b: 3 });
    await s.close();
  });

  it('OPS-5 OPS-7: inc() by -0 and remove() of -0 carry 0, as the log and every peer read them', async () => {
    const { s } = await node(T);
    await s.set('r', { a: 1 });
    await s.inc('r', 'n', -0);
    await s.add('r', 'tags', [0, 'x']);
    await s.remove('r', 'tags', [-0]);
    const ops = logOps(s);
    expect(Object.is(ops.find((op) => op.type === 'inc')?.value, 0)).toBe(true);
    const removed = ops.find((op) => op.type === 'remove')?.value as [unknown, string[]][];
    expect(Object.is(removed[0][0], 0)).toBe(true);
    expect(checkOp(ops.find((op) => op.type === 'remove') as Op, { now: T }).ok).toBe(true);
    expect(await s.get('r')).toEqual({ a: 1, n: 0, tags: ['x'] });
    await s.close();
  });

  it('applyPeerOps() refuses a wrong call with INVALID_ARGUMENT before any op of it is applied', async () => {
    const { s } = await node(T);
    const k = newSigningKey();
    const op = signOp({ origin: k.node, seq: 1, ts: T, type: 'write', id: 'r', data: { a: 1 } }, k.key);
    const via = { url: 'memory://peer', node: k.node };
    const seen = footprint(s);
    const calls: (() => Promise<unknown>)[] = [
      () => applyPeerOps(s, null as never, { via }),
      () => applyPeerOps(s, 'abc' as never, { via }),
      () => applyPeerOps(s, [op], {} as never),
      () => applyPeerOps(s, [op], undefined as never),
      () => applyPeerOps(s, [op], { via: { url: 'memory://peer' } } as never),
      () => applyPeerOps(s, [op], { via: { url: 1, node: k.node } } as never),
      () => applyPeerOps(s, [op], { via, signatures: 'none' } as never),
      () => applyPeerOps(s, [op], { via, feedHost: 1 } as never),
      () => applyPeerOps(s, [op], { via, inScope: true } as never),
      () => applyPeerOps(s, [op], Object.defineProperty({}, 'via', { get() { throw new Error('boom'); } }) as never),
      () => applyPeerOps({} as never, [op], { via }),
      () => applyPeerOps(s, Object.defineProperty([op], 0, { get() { throw new Error('boom'); } }), { via }),
    ];
    for (const call of calls) await refused(seen, call);
    expect(await s.has('r')).toBe(false);
    // The op was never taken: it applies now, as the next of its stream (no duplicate).
    expect(await applyPeerOps(s, [op], { via })).toMatchObject({ applied: 1, duplicates: 0 });
    expect(await s.get('r')).toEqual({ a: 1 });
    await s.close();
  });

  describe('GUAR-3 GUAR-5 SIG-6: a peer payload number that JSON text holds but canonical JSON does not (1e400, -1e400, -0)', () => {
    const k = newSigningKey();
    const head = { origin: k.node, ts: T, id: 'r' } as const;
    const via = { url: 'memory://peer', node: k.node };

    /** The op signed over its canonical form (null, 0), its JSON text then rewritten as a peer may send it. */
    function rewritten(op: Op, from: string, to: string): Op {
      const text = JSON.stringify(signOp(op, k.key));
      expect(text).toContain(from);
      return JSON.parse(text.split(from).join(to)) as Op;
    }

    const infinite = (): Op[] => [
      rewritten({ ...head, seq: 1, type: 'write', data: { f: null } }, '"f":null', '"f":1e400'),
      rewritten({ ...head, seq: 1, type: 'write', data: { f: null } }, '"f":null', '"f":-1e400'),
      rewritten({ ...head, seq: 1, type: 'set', data: { f: { g: [1, null] } } }, '[1,null]', '[1,-1e400]'),
      rewritten({ ...head, seq: 1, type: 'write', data: { f: 1 }, meta: { m: null } }, '"m":null', '"m":1e400'),
      rewritten({ ...head, seq: 1, type: 'add', key: 't', value: [null] }, '"value":[null]', '"value":[1e400]'),
    ];

    it('the signature verifies (canonical JSON reads Infinity as null), so the op check refuses them: OP_MALFORMED', async () => {
      const ops = infinite();
      expect(await verifyOps(ops)).toEqual(ops.map(() => 'ok'));
      for (const op of ops) expect([op.type, checkOp(op, { now: T })]).toEqual([op.type, { ok: false, code: 'OP_MALFORMED', reason: expect.stringMatching(/number JSON does not carry/) }]);
      expect(checkOp({ ...head, seq: 1, type: 'write', data: { f: [NaN] } }, { now: T })).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
    });

    it('they are counted malformed, reported OP_MALFORMED, neither applied nor logged; the honest op applies', async () => {
      const { s } = await node(T);
      const codes: string[] = [];
      s.on('error', (e) => codes.push(e.code));
      const seen = footprint(s);
      for (const op of infinite()) expect(await applyPeerOps(s, [op], { via })).toMatchObject({ applied: 0, malformed: 1 });
      expect(codes).toEqual(infinite().map(() => 'OP_MALFORMED'));
      expect(seen()).toEqual({ logged: 0, changes: 0 });
      expect(await s.has('r')).toBe(false);
      const honest = signOp({ ...head, seq: 1, type: 'write', data: { f: null, g: 0, h: [1e308, -1.5] } }, k.key);
      expect(await applyPeerOps(s, [JSON.parse(JSON.stringify(honest)) as Op], { via })).toMatchObject({ applied: 1, malformed: 0 });
      expect(await s.get('r')).toEqual({ f: null, g: 0, h: [1e308, -1.5] });
      await s.close();
    });

    it('a -0 verifies and is read as 0, as the log and a reopen read it', async () => {
      const ops = [
        rewritten({ ...head, seq: 1, type: 'write', data: { f: 0, g: [1, 0], h: { i: 0 } } }, ':0', ':-0'),
        rewritten({ ...head, seq: 2, type: 'inc', key: 'n', value: 0 }, '"value":0', '"value":-0'),
      ];
      expect(Object.is((ops[0].data as { f: number }).f, -0)).toBe(true);
      expect(await verifyOps(ops)).toEqual(['ok', 'ok']);
      const backend = createMemoryBackend();
      let s = await open({ path: 'n', backend, now: () => T });
      expect(await applyPeerOps(s, ops, { via })).toMatchObject({ applied: 2, malformed: 0 });
      const held = await s.get('r');
      expect(held).toEqual({ f: 0, g: [1, 0], h: { i: 0 }, n: 0 });
      const negative: unknown[] = [];
      JSON.stringify(held, (_k, v: unknown) => (Object.is(v, -0) && negative.push(v), v));
      expect(negative).toEqual([]);
      await s.close();
      s = await open({ path: 'n', backend, now: () => T });
      expect(await s.get('r')).toEqual(held);
      await s.close();
    });

    it('a merge entry holding an infinite number is malformed; one holding finite numbers passes', () => {
      const entry = (val: string) => `{"id":"r","latest":[1,"${k.node}"],"fields":{"f":{"k":"r","s":[1,"${k.node}"],"val":${val}}}}`;
      const merge = (val: string) => JSON.parse(`{"origin":"${k.node}","seq":1,"ts":1,"type":"merge","id":"r","data":${entry(val)}}`) as unknown;
      for (const val of ['1e400', '-1e400', '[1e400]', '{"x":-1e400}']) expect(checkOp(merge(val))).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
      for (const val of ['0', '1e308', 'null', '[0]']) expect(checkOp(merge(val)).ok).toBe(true);
      const checked = checkOp(merge('[-0]'));
      expect(checked.ok && Object.is((checked.op.data as unknown as { fields: { f: { val: number[] } } }).fields.f.val[0], 0)).toBe(true);
    });

    it('a snapshot page\'s entry holding an infinite number in a register is no entry (the page fails whole); finite ones are', () => {
      const entry = (val: string) => JSON.parse(`{"id":"r","latest":[1,"${k.node}"],"fields":{"f":{"k":"r","s":[1,"${k.node}"],"val":${val}}}}`) as unknown;
      for (const val of ['1e400', '-1e400', '[1e400]', '{"x":[-1e400]}']) expect(isEntry(entry(val), 'r')).toBe(false);
      for (const val of ['0', '1e308', 'null', '[0]', '{"x":"1e400"}']) expect(isEntry(entry(val), 'r')).toBe(true);
    });
  });
});

import { createPublicKey, sign, verify } from 'node:crypto';
import { isEntry } from '../../src/crdt';
import { checkOp, checkShape, publicKeyOf, sigHeader, signOp, verifyOps, type Op } from '../../src/op';
import { isWeakPoint } from '../../src/op/keys';
import { newSigningKey } from '../../src/testing/signing-key';
import { depthWithin, MAX_VALUE_DEPTH } from '../../src/op/shape';
import { node } from '../sync/helpers';
import { forgedBySmallOrder, IDENTITY_SIG, NON_CANONICAL, SMALL_ORDER, withNonCanonicalS } from './weak-keys';

function deep(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('engine checks against hostile keys, signatures and values', () => {
  const { key: privateKey, node: origin } = newSigningKey();

  it('SIG-14 SIG-20: no node id names a small-order point or a non-canonical encoding, though node:crypto imports them all', () => {
    for (const id of [...SMALL_ORDER, ...NON_CANONICAL]) {
      expect(() => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: id }, format: 'jwk' })).not.toThrow();
      expect([id, isWeakPoint(Buffer.from(id, 'base64url')), publicKeyOf(id)]).toEqual([id, true, undefined]);
    }
    // Real keys pass (one in 2^250 is weak: never).
    for (let i = 0; i < 200; i++) {
      const x = newSigningKey().node;
      expect(publicKeyOf(x)).toBeDefined();
    }
  });

  it('SIG-21: under the identity key node:crypto verifies "R = identity, S = 0" for any message, and forgeries exist under all 14 weak encodings; verifyOps calls them forged', async () => {
    const identity = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: SMALL_ORDER[0] }, format: 'jwk' });
    expect(verify(null, Buffer.from('any message at all'), identity, Buffer.from(IDENTITY_SIG, 'base64url'))).toBe(true);
    const forged = [...SMALL_ORDER, ...NON_CANONICAL].map((id) => forgedBySmallOrder(id));
    expect(await verifyOps(forged)).toEqual(forged.map(() => 'forged'));
  });

  it('SIG-21: a signature with S >= L, or whose text has stray bits in its last character, is forged; the op as signed is ok', async () => {
    const op = signOp({ origin, seq: 1, ts: 1_700_000_000_000, type: 'write', id: 'r', data: { a: 1 } }, privateKey);
    const sig = op.sig as string;
    const last = 'AEIMQUYcgkosw048'.indexOf(sig[85]);
    const stray = { ...op, sig: sig.slice(0, 85) + 'AEIMQUYcgkosw048'[last ^ 1] };
    expect(Buffer.from(stray.sig, 'base64url')).toEqual(Buffer.from(sig, 'base64url'));
    expect(await verifyOps([op, withNonCanonicalS(op), stray])).toEqual(['ok', 'forged', 'forged']);
    // node:crypto's own answer to S + L (OpenSSL reduces nothing and refuses it too, today).
    expect(verify(null, Buffer.from(sigHeader(op)), createPublicKey(privateKey), Buffer.from(withNonCanonicalS(op).sig as string, 'base64url'))).toBe(false);
    expect(sign(null, Buffer.from('x'), privateKey)).toHaveLength(64);
  });

  it('GUAR-3: depthWithin measures 100,000 levels without recursion, and a cycle reads as too deep', () => {
    expect(depthWithin(deep(100_000), 99_999)).toBe(false);
    expect(depthWithin(deep(100_000), 100_000)).toBe(true);
    expect(depthWithin(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)), 10)).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(depthWithin(cyclic, 1000)).toBe(false);
    expect(depthWithin('text', 0)).toBe(true);
  });

  it('GUAR-3: a peer op whose field values nest deeper than 100 levels is malformed; at 100 it passes, for every payload type', () => {
    const head = { origin, seq: 1, ts: 1, id: 'r' };
    const ops = (levels: number): Op[] => [
      { ...head, type: 'write', data: { f: deep(levels) } },
      { ...head, type: 'set', data: { f: deep(levels) } },
      { ...head, type: 'add', key: 'tags', value: [deep(levels)] },
      { ...head, type: 'remove', key: 'tags', value: [[deep(levels), ['1:x']]] },
      { ...head, type: 'merge', data: { id: 'r', latest: [1, origin], fields: { f: { k: 'r', s: [1, origin], val: deep(levels) } } } },
    ];
    for (const op of ops(MAX_VALUE_DEPTH)) expect([op.type, checkOp(op).ok]).toEqual([op.type, true]);
    for (const op of ops(MAX_VALUE_DEPTH + 1)) {
      // A log entry of old is still readable (checkShape); a peer's op is refused (checkOp).
      expect(checkShape(op).ok).toBe(true);
      expect([op.type, checkOp(op)]).toEqual([op.type, { ok: false, code: 'OP_MALFORMED', reason: expect.stringMatching(/nests deeper than 100 levels/) }]);
    }
    expect(checkOp({ ...head, type: 'write', data: { f: 1 }, meta: { m: deep(100_000) } })).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
    expect(checkOp(JSON.parse(`{"origin":"${origin}","seq":1,"ts":1,"type":"write","id":"r","data":{"f":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`))).toMatchObject({ ok: false });
  });

  it('GUAR-3: a counter or set key __proto__, constructor or prototype is malformed; toString is a name like any other', () => {
    const head = { origin, seq: 1, ts: 1, id: 'r' };
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      expect(checkOp({ ...head, type: 'inc', key, value: 1 })).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
      expect(checkOp({ ...head, type: 'add', key, value: [1] })).toMatchObject({ ok: false, code: 'OP_MALFORMED' });
    }
    expect(checkOp({ ...head, type: 'inc', key: 'toString', value: 1 }).ok).toBe(true);
  });

  it('GUAR-3: a snapshot entry whose register value or set element nests deeper than 100 levels is no entry', () => {
    const entry = (val: unknown, el: string) => ({
      id: 'r', latest: [1, origin],
      fields: { f: { k: 'r', s: [1, origin], val }, tags: { k: 's', el: { [el]: { add: ['1:' + origin], rem: [] } } } },
    });
    expect(isEntry(entry(deep(100), JSON.stringify(deep(100))), 'r')).toBe(true);
    expect(isEntry(entry(deep(101), '1'), 'r')).toBe(false);
    expect(isEntry(entry(1, JSON.stringify(deep(101))), 'r')).toBe(false);
    expect(isEntry(entry(1, '['.repeat(100_000) + ']'.repeat(100_000)), 'r')).toBe(false);
  });

  it('OPS-3 KIND-1: fields named like Object.prototype members (toString, valueOf, hasOwnProperty) are ordinary fields; __proto__ and constructor are refused with INVALID_ARGUMENT', async () => {
    const s = await node();
    await s.set('r', { toString: 'x', valueOf: 1, hasOwnProperty: 2 });
    expect(await s.get('r')).toEqual({ hasOwnProperty: 2, toString: 'x', valueOf: 1 });
    await s.set('c', { title: 't' });
    await s.inc('c', 'toString', 2);
    await s.add('c', 'valueOf', ['a']);
    await s.update('c', { isPrototypeOf: 'p' });
    expect(await s.get('c')).toEqual({ isPrototypeOf: 'p', title: 't', toString: 2, valueOf: ['a'] });
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      await expect(s.inc('c', key, 1)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(s.add('c', key, [1])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(s.remove('c', key, [1])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    await expect(s.set('d', { v: deep(101) as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.add('c', 'tags', [deep(101)])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.remove('c', 'valueOf', [deep(100_000)])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await s.set('d', { v: deep(100) as never });
    expect(await s.get('d')).toEqual({ v: deep(100) });
    await s.close();
  });
});

import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import {
  canonicalJson, digestOp, generateSealingKeys, generateSigningKeys, isScrubbed, loadPrivateKey, loadPublicKey,
  nodeIdOf, Op, payloadOf, publicKeyOf, scrubOp, sigHeader, signOp,
} from '../../src/op';
import { SyncomError } from '../../src/errors';
import { fullySignedOp, makeSigner, opsOfEachType } from './fixtures';

const signer = makeSigner();
const [write, , inc, , , del, purge, , advance] = opsOfEachType(signer.origin);

describe('keys', () => {
  it('SIG-2: a node id is the raw Ed25519 public key in base64url, 43 characters', () => {
    const { publicPem, privatePem } = generateSigningKeys();
    const publicKey = loadPublicKey(publicPem) as KeyObject;
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const id = nodeIdOf(publicKey);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(id).toBe(raw.toString('base64url'));
    expect(nodeIdOf(loadPrivateKey(privatePem))).toBe(id);
    expect(nodeIdOf(publicKeyOf(id)!)).toBe(id);
    expect(publicKeyOf(id)).toBe(publicKeyOf(id));
  });

  it('SIG-2: publicKeyOf answers undefined for an id that is no key', () => {
    const id = signer.origin;
    // The last character holds 4 key bits and 2 zero bits: setting one gives a non-canonical alias.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const alias = id.slice(0, 42) + alphabet[alphabet.indexOf(id[42]) + 1];
    expect(Buffer.from(alias, 'base64url').equals(Buffer.from(id, 'base64url'))).toBe(true);
    for (const bad of ['', 'node-a', id + 'A', id.slice(1), id.slice(0, 42) + '+', alias]) {
      expect(publicKeyOf(bad)).toBeUndefined();
    }
  });

  it('loads PEM key files as KeyObjects and refuses text that is no key', async () => {
    expect(() => loadPrivateKey('not a key')).toThrow(SyncomError);
    expect(() => loadPublicKey('not a key')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const sealing = await generateSealingKeys();
    expect(() => nodeIdOf(createPublicKey(loadPrivateKey(sealing.privatePem) as KeyObject))).toThrow(TypeError);
    expect(sealing.publicPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(sealing.privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect((loadPublicKey(sealing.publicPem) as KeyObject).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });
});

describe('signOp', () => {
  it('SIG-5: sig is Ed25519 over [1, origin, seq, ts, type, id, scope, from, v, actor, digest]', () => {
    const op = fullySignedOp(signer);
    const header = [1, op.origin, 42, op.ts, 'set', 'rec-9', 'team', 'relay', 3, 'alice', op.digest];
    expect(sigHeader(op)).toBe(JSON.stringify(header));
    const key = publicKeyOf(op.origin) as KeyObject;
    expect(verify(null, Buffer.from(JSON.stringify(header)), key, Buffer.from(op.sig!, 'base64url'))).toBe(true);
    expect(op.sig).toMatch(/^[A-Za-z0-9_-]{86}$/);
  });

  it('SIG-5: absent header fields are null in the signed array', () => {
    const signed = signOp(del, signer.privateKey);
    expect(sigHeader(signed)).toBe(JSON.stringify([1, del.origin, del.seq, del.ts, 'delete', 'rec-1', null, null, null, null, null]));
  });

  it('SIG-6: digest is SHA-256 of nonce + "\\n" + canonical payload, holding only the fields present', () => {
    const signed = signOp(inc, signer.privateKey);
    expect(payloadOf(signed)).toEqual({ key: 'views', value: 5 });
    expect(Object.keys(payloadOf(signed)!)).toEqual(['key', 'value']);
    const expected = createHash('sha256').update(`${signed.nonce}\n{"key":"views","value":5}`).digest('base64url');
    expect(signed.digest).toBe(expected);
    expect(digestOp(signed, signed.nonce!)).toBe(expected);
    const full = fullySignedOp(signer);
    const text = `${full.nonce}\n${canonicalJson({ data: full.data, meta: full.meta, key: 'k', value: [1, 2], vector: { x: 1 } })}`;
    expect(full.digest).toBe(createHash('sha256').update(text).digest('base64url'));
  });

  it('SIG-7: each digested op gets its own random 16-byte nonce', () => {
    const nonces = new Set(Array.from({ length: 50 }, () => signOp(write, signer.privateKey).nonce));
    expect(nonces.size).toBe(50);
    for (const nonce of nonces) expect(Buffer.from(nonce!, 'base64url')).toHaveLength(16);
    expect(signOp(write, signer.privateKey).digest).not.toBe(signOp(write, signer.privateKey).digest);
  });

  it('SIG-8: delete and purge carry no payload, digest or nonce: only sig', () => {
    for (const op of [del, purge]) {
      const signed = signOp(op, signer.privateKey);
      expect(payloadOf(signed)).toBeUndefined();
      expect(signed).toEqual({ ...op, sig: expect.any(String) });
    }
  });

  it('SIG-9: an advance\'s vector is payload, covered by the digest', () => {
    const signed = signOp(advance, signer.privateKey);
    expect(payloadOf(signed)).toEqual({ vector: advance.vector });
    const other: Op = { ...signed, vector: { ...advance.vector, extra: 1 } };
    expect(digestOp(other, signed.nonce!)).not.toBe(signed.digest);
  });

  it('SIG-10: scrubOp drops payload and nonce, keeps header, sig and digest', () => {
    const signed = fullySignedOp(signer);
    const scrubbed = scrubOp(signed);
    const { data, meta, key, value, vector, nonce, ...kept } = signed;
    expect([data, meta, key, value, vector, nonce].every((x) => x !== undefined)).toBe(true);
    expect(scrubbed).toEqual(kept);
    expect(isScrubbed(scrubbed)).toBe(true);
    expect(isScrubbed(signed)).toBe(false);
    expect(isScrubbed(signOp(del, signer.privateKey))).toBe(false);
    expect(sigHeader(scrubbed)).toBe(sigHeader(signed));
  });

  it('re-signing replaces an earlier sig, digest and nonce', () => {
    const once = signOp(write, signer.privateKey);
    const twice = signOp({ ...once, data: { title: 'Other' } }, signer.privateKey);
    expect(twice.nonce).not.toBe(once.nonce);
    expect(digestOp(twice, twice.nonce!)).toBe(twice.digest);
    expect(signOp({ ...signOp(write, signer.privateKey), type: 'delete', data: undefined, meta: undefined }, signer.privateKey).digest).toBeUndefined();
  });
});

import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { sigHeader, signOp, type Op } from '../../src/op';

/** The eight small-order points of Ed25519, canonically encoded (identity, order 2, 4, 4, 8, 8, 8, 8). */
export const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
].map((hex) => Buffer.from(hex, 'hex').toString('base64url'));

/** Non-canonical encodings of small-order points: x = 0 with the sign bit set, and y >= p. */
export const NON_CANONICAL = [
  '0100000000000000000000000000000000000000000000000000000000000080',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
].map((hex) => Buffer.from(hex, 'hex').toString('base64url'));

/** The signature "R = identity, S = 0": under a small-order key it verifies whenever [k]A is the identity. */
export const IDENTITY_SIG = Buffer.concat([Buffer.from(SMALL_ORDER[0], 'base64url'), Buffer.alloc(32)]).toString('base64url');

/**
 * A write from a small-order origin, its nonce ground until node:crypto itself
 * verifies IDENTITY_SIG over its header (1 in the point's order): a forgery
 * made with no private key, which only the engine's own key check refuses.
 */
export function forgedBySmallOrder(origin: string, body: Partial<Op> = {}): Op {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: origin }, format: 'jwk' });
  for (let i = 0; i < 512; i++) {
    const op = { origin, seq: 1, ts: Date.now(), type: 'write', id: `weak-${i}`, data: { forged: true }, ...body, sig: IDENTITY_SIG } as Op;
    const signed = { ...signOp(op, generateKeyPairSync('ed25519').privateKey), sig: IDENTITY_SIG };
    if (verify(null, Buffer.from(sigHeader(signed)), key, Buffer.from(IDENTITY_SIG, 'base64url'))) return signed;
  }
  throw new Error(`no forgery found for ${origin}`);
}

const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** The op with S + L in place of S: the same signature to a verifier that does not reduce. */
export function withNonCanonicalS(op: Op): Op {
  const sig = Buffer.from(op.sig as string, 'base64url');
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]);
  let big = s + L;
  for (let i = 32; i < 64; i++) { sig[i] = Number(big & 255n); big >>= 8n; }
  return { ...op, sig: sig.toString('base64url') };
}


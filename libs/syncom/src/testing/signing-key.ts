import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/**
 * A fresh Ed25519 signing key and its node id (the raw public key in
 * base64url, SIG-2), for tests, benchmarks and load peers that sign ops of
 * their own. The pair leaves the generation as DER bytes and the key object
 * is made anew from its raw seed and public key. Exporting a key object that
 * generateKeyPairSync handed out (`key.export({ format: 'jwk' })`) can hang
 * Node 20 for ever: the export holds a lock it shares with the native job
 * that made the key while it allocates, and a garbage collection there that
 * frees the job waits on that lock (seen as a load peer process that never
 * said ready, about one in thirty while making 1,500 keys; docs/operations.md).
 * @example
 * const { key, node } = newSigningKey();
 * const op = signOp({ origin: node, seq: 1, ts: Date.now(), type: 'write', id: 'a', data: {} }, key);
 */
export function newSigningKey(): { key: KeyObject; node: string } {
  const pair = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
    publicKeyEncoding: { type: 'spki', format: 'der' },
  });
  // Both encodings end with the 32 raw bytes: the seed (PKCS8) and the public key (SPKI).
  const raw = (der: Buffer): string => der.subarray(der.length - 32).toString('base64url');
  const node = raw(pair.publicKey);
  return { key: createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: raw(pair.privateKey), x: node }, format: 'jwk' }), node };
}

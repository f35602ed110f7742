import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { generateSealingKeys, type PemKeyPair } from '../op';

// PKCS#8 DER of an Ed25519 private key is this fixed prefix and then the 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

let sealing: Promise<PemKeyPair> | undefined;

/** The Ed25519 pair whose 32-byte seed is `seed` (so the node id follows from it). */
function signingPair(seed: Buffer): PemKeyPair {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return {
    privatePem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/**
 * The keys/ files of a simulated node: an Ed25519 pair derived from the run's
 * seed and the node's name, so one seed always gives the same node ids (ids
 * break register ties, CLK-4, so a replay needs them), and one RSA sealing
 * pair shared by the whole process (making one costs ~100 ms; no simulated
 * record is sealed).
 *
 * @example
 * const backend = createMemoryBackend({ files: await simKeyFiles(7, 'n0') });
 */
export async function simKeyFiles(seed: number, name: string): Promise<Record<string, string>> {
  const seal = await (sealing ??= generateSealingKeys());
  const sign = signingPair(createHash('sha256').update(`syncom-sim\n${seed}\n${name}`).digest());
  return {
    'keys/sign-private.pem': sign.privatePem,
    'keys/sign-public.pem': sign.publicPem,
    'keys/seal-private.pem': seal.privatePem,
    'keys/seal-public.pem': seal.publicPem,
  };
}

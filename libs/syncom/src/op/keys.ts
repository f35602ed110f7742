import { createPrivateKey, createPublicKey, generateKeyPair, generateKeyPairSync, KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { SyncomError } from '../errors';

/** A key pair as the PEM texts of keys/*.pem: public SPKI, private PKCS#8. */
export interface PemKeyPair {
  publicPem: string;
  privatePem: string;
}

const generateKeyPairAsync = promisify(generateKeyPair);

/** A new Ed25519 pair, the node's signing key and id (keys/sign-*.pem; SIG-4). */
export function generateSigningKeys(): PemKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicPem: publicKey, privatePem: privateKey };
}

/** A new RSA-2048 pair, the key that seals encrypted records. Generated off the main thread. */
export async function generateSealingKeys(): Promise<PemKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicPem: publicKey, privatePem: privateKey };
}

/**
 * Parse a private key PEM once; keep the KeyObject (parsing per call is ~10x slower).
 *
 * @throws SyncomError INVALID_ARGUMENT when the text is no private key.
 */
export function loadPrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (cause) {
    throw new SyncomError('INVALID_ARGUMENT', 'Not a PEM private key: check the keys/ folder.', { cause });
  }
}

/**
 * Parse a public key PEM once; keep the KeyObject.
 *
 * @throws SyncomError INVALID_ARGUMENT when the text is no public key.
 */
export function loadPublicKey(pem: string): KeyObject {
  try {
    return createPublicKey(pem);
  } catch (cause) {
    throw new SyncomError('INVALID_ARGUMENT', 'Not a PEM public key: check the keys/ folder.', { cause });
  }
}

/**
 * The node id of an Ed25519 key: the raw 32-byte public key in base64url,
 * 43 characters (SIG-2). A private key gives its public half's id.
 */
export function nodeIdOf(key: KeyObject): string {
  const x = key.export({ format: 'jwk' }).x;
  if (key.asymmetricKeyType !== 'ed25519' || typeof x !== 'string') {
    throw new TypeError('nodeIdOf: not an Ed25519 key');
  }
  return x;
}

const KEY_CACHE_LIMIT = 10_000;
// Bounded, since origins come from peers; null remembers an id that is no key.
const keyCache = new Map<string, KeyObject | null>();

/**
 * The public key a node id names, or undefined when the id is no Ed25519 key
 * (wrong length, not canonical base64url). Cached, the oldest evicted past 10,000.
 */
export function publicKeyOf(nodeId: string): KeyObject | undefined {
  let key = keyCache.get(nodeId);
  if (key === undefined) {
    key = parseNodeId(nodeId);
    keyCache.set(nodeId, key);
    if (keyCache.size > KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  }
  return key ?? undefined;
}

function parseNodeId(nodeId: string): KeyObject | null {
  // Canonical only: a different text decoding to the same 32 bytes is not this key's id.
  if (typeof nodeId !== 'string' || nodeId.length !== 43) return null;
  const raw = Buffer.from(nodeId, 'base64url');
  if (raw.toString('base64url') !== nodeId || isWeakPoint(raw)) return null;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: nodeId }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** The field prime of Curve25519, 2^255 - 19. */
const P = 2n ** 255n - 19n;

/**
 * The y coordinates of Ed25519's eight points of small order (the identity,
 * the point of order 2, two of order 4, four of order 8), each with either x.
 * The order-8 ones are ±y8 for y8 below.
 */
const Y8 = 0x7a03ac9277fdc74ec6cc392cfa53202a0f67100d760b3cba4fd84d3d706a17c7n;
const SMALL_ORDER_Y: ReadonlySet<bigint> = new Set([0n, 1n, P - 1n, Y8, P - Y8]);

/** A little-endian 32-byte buffer as a bigint. */
export function readLittleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
}

/**
 * True for an encoded Ed25519 point no node id may be: one of small order
 * (its 8 encodings and their sign-bit variants) and any encoding whose y is
 * not reduced (y >= p, which names a point under a second text). OpenSSL takes
 * such public keys, and under the identity key the signature "identity point,
 * S = 0" verifies for every message: anyone could sign as that origin.
 */
export function isWeakPoint(raw: Uint8Array): boolean {
  if (raw.length !== 32) return true;
  const y = readLittleEndian(raw) & (2n ** 255n - 1n);
  return y >= P || SMALL_ORDER_Y.has(y);
}

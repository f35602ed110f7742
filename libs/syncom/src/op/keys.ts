import { SyncomError } from '../errors';
import { platform, type PemKeyPair, type PlatformKey } from '../platform';

export type { PemKeyPair } from '../platform';

/** The synchronous key functions: Node's (the browser's Web Crypto has only async ones). */
function syncKeys(what: string) {
  const sync = platform().ed25519.sync;
  if (!sync) throw new SyncomError('UNSUPPORTED', `${what} is synchronous, which only Node.js is: in the browser the keys are read at open()`);
  return sync;
}

/** A new Ed25519 pair, the node's signing key and id (keys/sign-*.pem; SIG-4). Node only (synchronous). */
export function generateSigningKeys(): PemKeyPair {
  return syncKeys('generateSigningKeys').generate();
}

/** A new RSA-2048 pair, the key that seals encrypted records. Generated off the main thread. */
export function generateSealingKeys(): Promise<PemKeyPair> {
  return platform().generateSealingKeys();
}

/**
 * Parse a private key PEM once; keep the key (parsing per call is ~10x slower). Node only (synchronous).
 *
 * @throws SyncomError INVALID_ARGUMENT when the text is no private key.
 */
export function loadPrivateKey(pem: string): PlatformKey {
  return syncKeys('loadPrivateKey').importPrivate(pem);
}

/**
 * Parse a public key PEM once; keep the key. Node only (synchronous).
 *
 * @throws SyncomError INVALID_ARGUMENT when the text is no public key.
 */
export function loadPublicKey(pem: string): PlatformKey {
  return syncKeys('loadPublicKey').importPublic(pem);
}

/**
 * The node id of an Ed25519 key: the raw 32-byte public key in base64url,
 * 43 characters (SIG-2). A private key gives its public half's id. Node only (synchronous).
 */
export function nodeIdOf(key: PlatformKey): string {
  return syncKeys('nodeIdOf').idOf(key);
}

const KEY_CACHE_LIMIT = 10_000;
// Bounded, since origins come from peers; null remembers an id that is no key.
const keyCache = new Map<string, PlatformKey | null>();
/** The platform the cached keys were made by: a swapped platform (a test's) starts a fresh cache. */
let cachedBy: object | undefined;

/**
 * The public key a node id names, or undefined when the id is no Ed25519 key
 * (wrong length, not canonical base64url). Cached, the oldest evicted past 10,000.
 */
export function publicKeyOf(nodeId: string): PlatformKey | undefined {
  if (cachedBy !== platform()) {
    keyCache.clear();
    cachedBy = platform();
  }
  let key = keyCache.get(nodeId);
  if (key === undefined) {
    key = parseNodeId(nodeId);
    keyCache.set(nodeId, key);
    if (keyCache.size > KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  }
  return key ?? undefined;
}

// The checks here hold on every platform: Web Crypto is asked only about an id that passed them.
function parseNodeId(nodeId: string): PlatformKey | null {
  // Canonical only: a different text decoding to the same 32 bytes is not this key's id.
  if (typeof nodeId !== 'string' || nodeId.length !== 43) return null;
  const p = platform();
  const raw = p.fromBase64url(nodeId);
  if (p.base64url(raw) !== nodeId || isWeakPoint(raw)) return null;
  return p.ed25519.publicKey(nodeId, raw);
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

import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { SyncomError } from '../errors';
import { checkReadCost, checkReadSize } from './read-bound';
import { runLimited } from './batch';
import { signOffThread, signOnLibuv } from './node-signer';
import type { Ed25519, PemKeyPair, Platform, PlatformKey, VerifyItem } from './types';

/**
 * Node's platform: node:crypto (OpenSSL) for hashes and Ed25519, Buffer's
 * native encodings, setImmediate. Verification runs on libuv's pool and
 * own-op signing on the signer threads (node-signer.ts), as before the seam.
 */

const generateKeyPair = promisify(crypto.generateKeyPair);
const bufferOf = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

// crypto.hash (Node 20.12+) skips the Hash object, a third of a digest's cost; older Nodes take the long way.
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: string) => string | Buffer }).hash;
const sha256 = oneShot
  ? (text: string) => oneShot('sha256', text, 'base64url') as string
  : (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('base64url');
const sha256Bytes = oneShot
  ? (data: Uint8Array) => oneShot('sha256', data, 'buffer') as Buffer
  : (data: Uint8Array) => crypto.createHash('sha256').update(data).digest();

function loadPrivate(pem: string): crypto.KeyObject {
  try {
    return crypto.createPrivateKey(pem);
  } catch (cause) {
    throw new SyncomError('INVALID_ARGUMENT', 'Not a PEM private key: check the keys/ folder.', { cause });
  }
}

function loadPublic(pem: string): crypto.KeyObject {
  try {
    return crypto.createPublicKey(pem);
  } catch (cause) {
    throw new SyncomError('INVALID_ARGUMENT', 'Not a PEM public key: check the keys/ folder.', { cause });
  }
}

function generateSync(): PemKeyPair {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicPem: publicKey, privatePem: privateKey };
}

function idOf(key: PlatformKey): string {
  const k = key as crypto.KeyObject;
  const x = k.export({ format: 'jwk' }).x;
  if (k.asymmetricKeyType !== 'ed25519' || typeof x !== 'string') throw new TypeError('nodeIdOf: not an Ed25519 key');
  return x;
}

function publicKey(nodeId: string): PlatformKey | null {
  try {
    return crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: nodeId }, format: 'jwk' });
  } catch {
    return null;
  }
}

const signSync = (key: PlatformKey, text: string): string =>
  crypto.sign(null, Buffer.from(text, 'utf8'), key as crypto.KeyObject).toString('base64url');

function signAsync(key: PlatformKey, text: string): Promise<string> {
  const target: { sig?: string } = {};
  return signOnLibuv(target, text, key as crypto.KeyObject).then(() => target.sig as string);
}

function verify(item: VerifyItem): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      crypto.verify(null, Buffer.from(item.data, 'utf8'), item.key as crypto.KeyObject, item.sig, (error, ok) => resolve(!error && ok));
    } catch {
      resolve(false);
    }
  });
}

const ed25519: Ed25519 = {
  generate: async () => generateSync(),
  importPrivate: async (pem) => loadPrivate(pem),
  importPublic: async (pem) => loadPublic(pem),
  idOf: async (key) => idOf(key),
  publicKey,
  sign: signAsync,
  signInto: (target, text, key) => signOffThread(target, text, key as crypto.KeyObject),
  verify,
  verifyBatch: (items, concurrency = 64) => runLimited(items.length, concurrency, (i) => verify(items[i])),
  sync: { generate: generateSync, importPrivate: loadPrivate, importPublic: loadPublic, idOf, sign: signSync },
};

/** A new RSA-2048 pair, the key that seals encrypted records. Generated off the main thread. */
async function generateSealingKeys(): Promise<PemKeyPair> {
  const { publicKey: pub, privateKey } = await generateKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicPem: pub, privatePem: privateKey };
}

function sealingPublicPem(key: PlatformKey): string {
  const k = key as crypto.KeyObject;
  if (k.asymmetricKeyType !== 'rsa') throw new SyncomError('INVALID_ARGUMENT', 'Not an RSA sealing key: check the keys/ folder.');
  return (k.type === 'private' ? crypto.createPublicKey(k) : k).export({ type: 'spki', format: 'pem' }) as string;
}

/** Node's platform, without the parts that live above platform/ (the fs backend, sealing, pages' bytes: see node-platform.ts). */
export const nodePlatform: Platform = {
  name: 'node',
  sha256,
  sha256Parts: (parts) => {
    const h = crypto.createHash('sha256');
    for (const p of parts) h.update(p);
    return h.digest('base64url');
  },
  sha256Hex: (text) => crypto.createHash('sha256').update(text).digest('hex'),
  sha256Bytes,
  sha256Utf16: (text) => sha256Bytes(Buffer.from(text, 'utf16le')),
  randomBytes: (n) => crypto.randomBytes(n),
  randomUUID: () => crypto.randomUUID(),
  base64url: (bytes) => bufferOf(bytes).toString('base64url'),
  fromBase64url: (text) => Buffer.from(text, 'base64url'),
  utf8: (text) => Buffer.from(text, 'utf8'),
  fromUtf8: (bytes) => bufferOf(bytes).toString('utf8'),
  byteLength: (text) => Buffer.byteLength(text),
  macrotask: (fn) => void setImmediate(fn),
  heapRoom: () => {
    const h = getHeapStatistics();
    return h.heap_size_limit - h.used_heap_size;
  },
  checkRead: (path, read) => (typeof read === 'number' ? checkReadSize(path, read) : checkReadCost(path, read)),
  ed25519,
  generateSealingKeys,
  importSealingKey: async (pem, kind) => (kind === 'public' ? loadPublic(pem) : loadPrivate(pem)),
  sealingPublicPem,
};

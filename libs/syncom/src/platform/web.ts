import { sha256 } from '@noble/hashes/sha2';
import { SyncomError } from '../errors';
import { runLimited } from './batch';
import { fromBase64url, fromPem, fromUtf8, toBase64url, toHex, toPem, utf16le, utf8, utf8Length } from './text';
import type { Ed25519, PemKeyPair, Platform, PlatformKey, VerifyItem } from './types';

/**
 * The browser's platform: Web Crypto for Ed25519 (crypto.subtle, 'Ed25519')
 * and randomness, @noble/hashes for the synchronous SHA-256 the op digest
 * needs (subtle.digest is async), encodings without Buffer, a MessageChannel
 * task for a macrotask yield. It reads and writes the same keys files as
 * Node's (PEM: SPKI public, PKCS#8 private), so a store's layout is the same.
 *
 * Strictness: what Node's verifier refuses beside OpenSSL (small-order and
 * non-canonical public keys, S >= L, a second encoding of a signature) is
 * refused in op/keys.ts and op/verify.ts before any platform is asked.
 */

/** The parts of Web Crypto used here, typed locally (the engine compiles without the DOM lib). */
interface CryptoKey {
  readonly type: string;
  readonly algorithm: { name: string };
}
interface CryptoKeyPair {
  publicKey: CryptoKey;
  privateKey: CryptoKey;
}
type BufferSource = Uint8Array;
interface Subtle {
  generateKey(algorithm: unknown, extractable: boolean, usages: string[]): Promise<CryptoKeyPair | CryptoKey>;
  importKey(format: string, data: BufferSource, algorithm: unknown, extractable: boolean, usages: string[]): Promise<CryptoKey>;
  exportKey(format: 'jwk', key: CryptoKey): Promise<{ x?: string }>;
  exportKey(format: string, key: CryptoKey): Promise<ArrayBuffer>;
  sign(algorithm: unknown, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
  verify(algorithm: unknown, key: CryptoKey, sig: BufferSource, data: BufferSource): Promise<boolean>;
}

const subtle = (): Subtle => {
  const s = globalThis.crypto?.subtle as unknown as Subtle | undefined;
  if (!s) throw new SyncomError('UNSUPPORTED', 'no crypto.subtle: syncom needs https or localhost');
  return s;
};
const ED = 'Ed25519';
const source = (b: Uint8Array): BufferSource => b;

/** A node id's key: its raw bytes, imported into Web Crypto at the first verification. */
interface RawPublicKey {
  raw: Uint8Array;
  imported?: Promise<CryptoKey>;
}

const isCryptoKey = (k: PlatformKey): k is CryptoKey => typeof (k as CryptoKey).type === 'string' && 'algorithm' in (k as CryptoKey);

/**
 * A Web Crypto without Ed25519 (Chrome before 137, Firefox before 129, Safari
 * before 17) rejects every Ed25519 call with NotSupportedError: UNSUPPORTED,
 * so that open() does not take it for a damaged key file (whose remedy would
 * be to give up the store's log) and no raw DOMException, whose `code` is a
 * number, reaches the app.
 */
function unsupported(cause: unknown): SyncomError | undefined {
  if ((cause as { name?: unknown } | null)?.name !== 'NotSupportedError') return undefined;
  return new SyncomError('UNSUPPORTED', "this browser's Web Crypto has no Ed25519: syncom needs Chrome 137+, Firefox 129+ or Safari 17+", { cause });
}

/** `work`, its NotSupportedError made UNSUPPORTED (see unsupported). */
async function withEd25519<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (cause) {
    throw unsupported(cause) ?? cause;
  }
}

async function importDer(pem: string, kind: 'private' | 'public'): Promise<CryptoKey> {
  const der = fromPem(pem, kind === 'private' ? 'PRIVATE KEY' : 'PUBLIC KEY');
  // Outside the try: no Web Crypto (UNSUPPORTED) says nothing about the key file, which open() would report as damaged.
  const s = subtle();
  try {
    if (!der) throw new Error('no PEM block');
    return await s.importKey(kind === 'private' ? 'pkcs8' : 'spki', source(der), ED, true, [kind === 'private' ? 'sign' : 'verify']);
  } catch (cause) {
    throw unsupported(cause) ?? new SyncomError('INVALID_ARGUMENT', `Not a PEM ${kind} key: check the keys/ folder.`, { cause });
  }
}

async function generate(): Promise<PemKeyPair> {
  const pair = (await withEd25519(subtle().generateKey(ED, true, ['sign', 'verify']))) as CryptoKeyPair;
  return pemPair(pair);
}

async function pemPair(pair: CryptoKeyPair): Promise<PemKeyPair> {
  const [spki, pkcs8] = await Promise.all([subtle().exportKey('spki', pair.publicKey), subtle().exportKey('pkcs8', pair.privateKey)]);
  return { publicPem: toPem(new Uint8Array(spki), 'PUBLIC KEY'), privatePem: toPem(new Uint8Array(pkcs8), 'PRIVATE KEY') };
}

async function idOf(key: PlatformKey): Promise<string> {
  if (!isCryptoKey(key)) return toBase64url((key as RawPublicKey).raw);
  if (key.algorithm.name !== ED) throw new TypeError('nodeIdOf: not an Ed25519 key');
  if (key.type === 'public') return toBase64url(new Uint8Array(await subtle().exportKey('raw', key)));
  const x = (await subtle().exportKey('jwk', key)).x;
  if (typeof x !== 'string') throw new TypeError('nodeIdOf: not an Ed25519 key');
  return x;
}

async function sign(key: PlatformKey, text: string): Promise<string> {
  return toBase64url(new Uint8Array(await withEd25519(subtle().sign(ED, key as CryptoKey, source(utf8(text))))));
}

function cryptoKeyOf(key: PlatformKey): Promise<CryptoKey> {
  if (isCryptoKey(key)) return Promise.resolve(key);
  const k = key as RawPublicKey;
  if (k.imported) return k.imported;
  const p = (k.imported = subtle().importKey('raw', source(k.raw), ED, false, ['verify']));
  // Not kept when it fails: the key is held per node for the session, and a failure of Web Crypto's had read every later op of that node as forged.
  p.catch(() => { if (k.imported === p) k.imported = undefined; });
  return p;
}

async function verify(item: VerifyItem): Promise<boolean> {
  try {
    return await subtle().verify(ED, await cryptoKeyOf(item.key), source(item.sig), source(utf8(item.data)));
  } catch {
    return false;
  }
}

const ed25519: Ed25519 = {
  generate,
  importPrivate: (pem) => importDer(pem, 'private'),
  importPublic: (pem) => importDer(pem, 'public'),
  idOf,
  publicKey: (_id, raw) => ({ raw: raw.slice() }) satisfies RawPublicKey,
  sign,
  signInto: async (target, text, key) => {
    target.sig = await sign(key, text);
  },
  verify,
  // SIG-28: sixty-four checks of a page in flight at a time, started in order.
  verifyBatch: (items, concurrency = 64) => runLimited(items.length, concurrency, (i) => verify(items[i])),
};

/** A new RSA-2048 sealing pair in the keys file format (the browser writes it; sealing itself is Node's). */
async function generateSealingKeys(): Promise<PemKeyPair> {
  const algorithm = { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
  return pemPair((await subtle().generateKey(algorithm, true, ['encrypt', 'decrypt'])) as CryptoKeyPair);
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  // getRandomValues fills at most 65,536 bytes a call.
  for (let at = 0; at < n; at += 65536) globalThis.crypto.getRandomValues(out.subarray(at, Math.min(n, at + 65536)));
  return out;
}

function randomUUID(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = toHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A macrotask: a MessageChannel message runs after pending input and I/O, without setTimeout's 4 ms clamp. */
function makeMacrotask(): (fn: () => void) => void {
  if (typeof MessageChannel !== 'function') return (fn) => void setTimeout(fn, 0);
  const queue: Array<() => void> = [];
  const channel = new MessageChannel() as unknown as { port1: { onmessage: unknown; unref?: () => void }; port2: { postMessage(m: unknown): void } };
  channel.port1.onmessage = () => queue.shift()?.();
  // Under Node (tests), an idle port must not hold the process open.
  channel.port1.unref?.();
  return (fn) => {
    queue.push(fn);
    channel.port2.postMessage(null);
  };
}

let macrotask: ((fn: () => void) => void) | undefined;

/** The browser's platform. Sealed records are not available in it (see sealed/index.ts). */
export const webPlatform: Platform = {
  name: 'web',
  sha256: (text) => toBase64url(sha256(utf8(text))),
  sha256Parts: (parts) => {
    const h = sha256.create();
    for (const p of parts) h.update(utf8(p));
    return toBase64url(h.digest());
  },
  sha256Hex: (text) => toHex(sha256(utf8(text))),
  sha256Bytes: (data) => sha256(data),
  sha256Utf16: (text) => sha256(utf16le(text)),
  randomBytes,
  randomUUID,
  base64url: toBase64url,
  fromBase64url,
  utf8,
  fromUtf8,
  byteLength: utf8Length,
  macrotask: (fn) => (macrotask ??= makeMacrotask())(fn),
  ed25519,
  generateSealingKeys,
  importSealingKey: async (pem) => ({ pem }),
};

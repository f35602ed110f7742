import type { Backend } from '../backend/types';
import { platform, type PemKeyPair, type PlatformKey } from '../platform';

/** The node's keys, parsed once (parsing a PEM per call is ten times slower): KeyObjects in Node, CryptoKeys in the browser. */
export interface NodeKeys {
  id: string;
  signPrivate: PlatformKey;
  signPublic: PlatformKey;
  sealPublic: PlatformKey;
  sealPrivate: PlatformKey;
}

export const KEYS_DIR = 'keys';

/** Keys parsed at recent opens, by platform, kind and the SHA-256 of their PEM text; the oldest dropped past this many. */
const PARSED_LIMIT = 16;
const parsed = new Map<string, Promise<PlatformKey>>();

type Kind = 'sign-public' | 'sign-private' | 'seal-public' | 'seal-private';

/**
 * A PEM parsed once per process: OpenSSL's decoders take 0.1-0.8 ms a key
 * (an RSA private key the most), which a storage reopened (a restart in
 * place, a test's or simulator's reboot, one process opening many storages
 * that share a sealing pair) would pay again. Parsed keys are immutable, so
 * storages may share one.
 */
function parse(pem: string, kind: Kind): Promise<PlatformKey> {
  const p = platform();
  const id = `${p.name}:${kind}:${p.sha256(pem)}`;
  let key = parsed.get(id);
  if (!key) {
    key = load(pem, kind);
    parsed.set(id, key);
    // A text that failed to parse is not kept: the next open reads the file again.
    key.catch(() => parsed.get(id) === key && parsed.delete(id));
    if (parsed.size > PARSED_LIMIT) parsed.delete(parsed.keys().next().value as string);
  }
  return key;
}

function load(pem: string, kind: Kind): Promise<PlatformKey> {
  const p = platform();
  const sync = p.ed25519.sync;
  // Node parses synchronously (as before the seam); the promise is only the common shape.
  if (kind === 'sign-public') return sync ? Promise.resolve().then(() => sync.importPublic(pem)) : p.ed25519.importPublic(pem);
  if (kind === 'sign-private') return sync ? Promise.resolve().then(() => sync.importPrivate(pem)) : p.ed25519.importPrivate(pem);
  return p.importSealingKey(pem, kind === 'seal-public' ? 'public' : 'private');
}

async function pair(backend: Backend, name: 'sign' | 'seal', make: () => Promise<PemKeyPair>) {
  const pubPath = `${KEYS_DIR}/${name}-public.pem`;
  const privPath = `${KEYS_DIR}/${name}-private.pem`;
  let pub = await backend.read(pubPath);
  let priv = await backend.read(privPath);
  if (pub === undefined || priv === undefined) {
    const made = await make();
    // The private key first: a crash between the two leaves a pair that is remade whole.
    await backend.write(privPath, made.privatePem, { durable: true });
    await backend.write(pubPath, made.publicPem, { durable: true });
    pub = made.publicPem;
    priv = made.privatePem;
  }
  const [pubKey, privKey] = await Promise.all([parse(pub, `${name}-public`), parse(priv, `${name}-private`)]);
  return { pub: pubKey, priv: privKey };
}

/**
 * Load the node's key pairs from <path>/keys/, making them at the first open
 * (SIG-4): Ed25519 sign-public.pem / sign-private.pem, and the RSA pair that
 * seals records, seal-public.pem / seal-private.pem. The files are the same
 * on every platform (PEM: SPKI public, PKCS#8 private), so a store written
 * by Node opens in the browser and the reverse.
 */
export async function loadKeys(backend: Backend): Promise<NodeKeys> {
  await backend.mkdir(KEYS_DIR);
  const p = platform();
  const [sign, seal] = await Promise.all([
    pair(backend, 'sign', () => p.ed25519.generate()),
    pair(backend, 'seal', () => p.generateSealingKeys()),
  ]);
  return { id: await p.ed25519.idOf(sign.pub), signPrivate: sign.priv, signPublic: sign.pub, sealPublic: seal.pub, sealPrivate: seal.priv };
}

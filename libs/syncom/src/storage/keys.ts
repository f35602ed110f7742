import { createHash, type KeyObject } from 'node:crypto';
import type { Backend } from '../backend/types';
import { generateSealingKeys, generateSigningKeys, loadPrivateKey, loadPublicKey, nodeIdOf } from '../op';

/** The node's keys, kept as KeyObjects (parsing a PEM per call is ten times slower). */
export interface NodeKeys {
  id: string;
  signPrivate: KeyObject;
  signPublic: KeyObject;
  sealPublic: KeyObject;
  sealPrivate: KeyObject;
}

export const KEYS_DIR = 'keys';

/** Keys parsed at recent opens, by the SHA-256 of their PEM text; the oldest dropped past this many. */
const PARSED_LIMIT = 16;
const parsed = new Map<string, KeyObject>();

/**
 * A PEM parsed once per process: OpenSSL's decoders take 0.1-0.8 ms a key
 * (an RSA private key the most), which a storage reopened (a restart in
 * place, a test's or simulator's reboot, one process opening many storages
 * that share a sealing pair) would pay again. KeyObjects are immutable, so
 * storages may share one.
 */
function parse(pem: string, load: (pem: string) => KeyObject): KeyObject {
  const id = createHash('sha256').update(pem).digest('base64url');
  let key = parsed.get(id);
  if (!key) {
    key = load(pem);
    parsed.set(id, key);
    if (parsed.size > PARSED_LIMIT) parsed.delete(parsed.keys().next().value as string);
  }
  return key;
}

async function pair(backend: Backend, name: string, make: () => Promise<{ publicPem: string; privatePem: string }>) {
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
  return { pub: parse(pub, loadPublicKey), priv: parse(priv, loadPrivateKey) };
}

/**
 * Load the node's key pairs from <path>/keys/, making them at the first open
 * (SIG-4): Ed25519 sign-public.pem / sign-private.pem, and the RSA pair that
 * seals records, seal-public.pem / seal-private.pem.
 */
export async function loadKeys(backend: Backend): Promise<NodeKeys> {
  await backend.mkdir(KEYS_DIR);
  const [sign, seal] = await Promise.all([
    pair(backend, 'sign', async () => generateSigningKeys()),
    pair(backend, 'seal', generateSealingKeys),
  ]);
  return { id: nodeIdOf(sign.pub), signPrivate: sign.priv, signPublic: sign.pub, sealPublic: seal.pub, sealPrivate: seal.priv };
}

import type { KeyObject } from 'node:crypto';
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
  return { pub: loadPublicKey(pub), priv: loadPrivateKey(priv) };
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

import { platform, type PlatformKey } from '../platform';
import { sigHeader } from './sign';
import type { Op } from './types';

/**
 * Sign an op of this node (through digestForSigning already) off the main
 * thread; resolves once op.sig is set. In Node, ops signed in one burst share
 * a message to a signing thread (platform/node-signer.ts); in the browser,
 * Web Crypto signs each.
 *
 * @example
 * await signOff(digestForSigning(op), keys.signPrivate); // op.sig is set
 */
export function signOff(op: Op, key: PlatformKey): Promise<void> {
  return platform().ed25519.signInto(op, sigHeader(op), key);
}

import { SyncomError } from '../../errors';
import { publicKeyOf } from '../../op/keys';
import { helloProofText } from '../../op/sign';
import { platform } from '../../platform';

/**
 * A signed hello challenge (docs/security.md, A socket without a token): a
 * host with `proveNodes` refuses a hello that carries no proof with 401
 * UNPROVEN and a challenge, fresh random text kept for that connection; the
 * dialer signs it with its node key and greets again with the signature as
 * `proof`. The challenge is used once, on the connection it was made for.
 */

/** How a challenge looks: base64url, 22 to 128 characters. The dialer signs nothing else. */
const CHALLENGE = /^[A-Za-z0-9_-]{22,128}$/;

/** Whether a host's challenge is one a dialer may sign. */
export function isChallenge(x: unknown): x is string {
  return typeof x === 'string' && CHALLENGE.test(x);
}

/** A new challenge: 24 random bytes, base64url (32 characters). */
export function newChallenge(): string {
  const p = platform();
  return p.base64url(p.randomBytes(24));
}

/** Whether `proof` is the signature of `challenge` by the key node id `node` names; never rejects. */
export async function helloProven(node: string, challenge: string, proof: string): Promise<boolean> {
  const key = publicKeyOf(node);
  if (!key || proof.length !== 86) return false;
  return platform().ed25519.verify({ key, data: helloProofText(challenge, node), sig: platform().fromBase64url(proof) });
}

/** The refusal of a hello that did not prove its node id, with the challenge to sign (none where the id is no key). */
export function unproven(why: string, challenge?: string): SyncomError {
  return new SyncomError('UNPROVEN', `this host asks peers to prove their node id: ${why}`, { status: 401, ...(challenge !== undefined && { challenge }) });
}

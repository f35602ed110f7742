import { platform } from '../platform';
import { runLimited } from '../platform/batch';
import { publicKeyOf, readLittleEndian } from './keys';
import { isBase64url } from './shape';
import { hasPayload, isScrubbed } from './payload';
import { digestOp, sigHeader } from './sign';
import { Op } from './types';

/** What verification made of one op: intact, refused as forged, or carrying no sig. */
export type Verdict = 'ok' | 'forged' | 'unsigned';

/** Options of {@link verifyOps}. */
export interface VerifyOptions {
  /** Signatures checked at a time on libuv's pool or in Web Crypto. Default 64 (SIG-27, SIG-28). */
  concurrency?: number;
}

/**
 * Verify a page of ops against their origins (Signatures): one verdict per op,
 * in order. The Ed25519 checks run on libuv's thread pool (Node) or in Web
 * Crypto (the browser), started in order and at most `concurrency` at a
 * time, so the main thread stays free (SIG-27, SIG-28). An op
 * without sig is 'unsigned'; one whose origin is no key, whose digest does not
 * match its payload and nonce, or whose sig does not check is 'forged'. A
 * scrubbed op verifies on its header alone (SIG-11). Never rejects.
 *
 * @example
 * const verdicts = await verifyOps(ops);
 * const forged = verdicts.filter((v) => v === 'forged').length;
 */
export async function verifyOps(ops: readonly Op[], options: VerifyOptions = {}): Promise<Verdict[]> {
  // One op prepared (digest, sig decoded) as a runner frees: the main thread's share overlaps the checks in flight.
  const checked = await runLimited<Verdict | boolean>(ops.length, options.concurrency ?? 64, (i) => verifyOne(ops[i]));
  // A check's answer is read here, not in a .then of its own: one promise less per op verified.
  return checked.map((x): Verdict => (x === true ? 'ok' : x === false ? 'forged' : x));
}

/** The verdict when it is known without a check, else the check's answer. */
function verifyOne(op: Op): Promise<boolean> | Verdict {
  try {
    if (op.sig === undefined) return 'unsigned';
    const key = publicKeyOf(op.origin);
    if (key === undefined || !hasIntactDigest(op)) return 'forged';
    const p = platform();
    const sig = p.fromBase64url(op.sig);
    if (!isCanonicalSig(op.sig, sig)) return 'forged';
    return p.ed25519.verify({ key, data: sigHeader(op), sig });
  } catch {
    return 'forged';
  }
}

/** Whether an op's payload matches its digest and nonce (a scrubbed op has neither to check; one without payload carries neither). */
// hasPayload, not payloadOf: the same answer without building the payload object on every op verified.
export function hasIntactDigest(op: Op): boolean {
  if (isScrubbed(op)) return true;
  if (!hasPayload(op)) return op.nonce === undefined && op.digest === undefined;
  if (op.digest === undefined || op.nonce === undefined) return false;
  return digestOp(op, op.nonce) === op.digest;
}

/** The order of Ed25519's base point, L = 2^252 + 27742317777372353535851937790883648493. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/**
 * A signature in its one encoding: 64 bytes whose base64url text is the one
 * given (no stray bits in the last character), with S < L. OpenSSL refuses
 * S >= L itself; the check here keeps that from depending on its version, or
 * on the browser's Web Crypto.
 */
function isCanonicalSig(text: string, sig: Uint8Array): boolean {
  return sig.length === 64 && isCanonicalSigText(text) && isBelowL(sig.subarray(32));
}

/**
 * Whether `text` is the base64url encoding of the 64 bytes it decodes to,
 * read off the text rather than by encoding the bytes again (on every op a
 * host verifies): 86 characters of the alphabet, the last of which carries
 * 2 bits of the signature and 4 that must be zero, so it is A, Q, g or w.
 */
export function isCanonicalSigText(text: string): boolean {
  return isBase64url(text, 86) && LAST_SIG_CHAR.includes(text[85]);
}

const LAST_SIG_CHAR = 'AQgw';

/**
 * S < L for S's 32 little-endian bytes. L's top byte is 0x10 and the rest of
 * it is below 2^125, so any other top byte decides alone; only 0x10 takes the
 * bigint (about 1 µs an op, paid by every verified op before this).
 */
export function isBelowL(s: Uint8Array): boolean {
  const top = s[31];
  return top === 0x10 ? readLittleEndian(s) < L : top < 0x10;
}

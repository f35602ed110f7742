import { verify } from 'node:crypto';
import { publicKeyOf, readLittleEndian } from './keys';
import { isScrubbed, payloadOf } from './payload';
import { digestOp, sigHeader } from './sign';
import { Op } from './types';

/** What verification made of one op: intact, refused as forged, or carrying no sig. */
export type Verdict = 'ok' | 'forged' | 'unsigned';

/** Options of {@link verifyOps}. */
export interface VerifyOptions {
  /** Signatures checked at a time on libuv's pool. Default 64 (SIG-27). */
  concurrency?: number;
}

/**
 * Verify a page of ops against their origins (Signatures): one verdict per op,
 * in order. The Ed25519 checks run on libuv's thread pool, at most
 * `concurrency` at a time, so the main thread stays free (SIG-27). An op
 * without sig is 'unsigned'; one whose origin is no key, whose digest does not
 * match its payload and nonce, or whose sig does not check is 'forged'. A
 * scrubbed op verifies on its header alone (SIG-11). Never rejects.
 *
 * @example
 * const verdicts = await verifyOps(ops);
 * const forged = verdicts.filter((v) => v === 'forged').length;
 */
export async function verifyOps(ops: readonly Op[], options: VerifyOptions = {}): Promise<Verdict[]> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 64)) || 64;
  const verdicts = new Array<Verdict>(ops.length);
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < ops.length) {
      const index = next++;
      verdicts[index] = await verifyOne(ops[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ops.length) }, runner));
  return verdicts;
}

function verifyOne(op: Op): Promise<Verdict> | Verdict {
  try {
    if (op.sig === undefined) return 'unsigned';
    const key = publicKeyOf(op.origin);
    if (key === undefined || !hasIntactDigest(op)) return 'forged';
    const data = Buffer.from(sigHeader(op), 'utf8');
    const sig = Buffer.from(op.sig, 'base64url');
    if (!isCanonicalSig(op.sig, sig)) return 'forged';
    return new Promise((resolve) => {
      verify(null, data, key, sig, (error, ok) => resolve(!error && ok ? 'ok' : 'forged'));
    });
  } catch {
    return 'forged';
  }
}

// The payload must match digest and nonce; a scrubbed op has neither payload nor nonce to check.
function hasIntactDigest(op: Op): boolean {
  if (isScrubbed(op)) return true;
  if (payloadOf(op) === undefined) return op.nonce === undefined && op.digest === undefined;
  if (op.digest === undefined || op.nonce === undefined) return false;
  return digestOp(op, op.nonce) === op.digest;
}

/** The order of Ed25519's base point, L = 2^252 + 27742317777372353535851937790883648493. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/**
 * A signature in its one encoding: 64 bytes whose base64url text is the one
 * given (no stray bits in the last character), with S < L. OpenSSL refuses
 * S >= L itself; the check here keeps that from depending on its version.
 */
function isCanonicalSig(text: string, sig: Buffer): boolean {
  return sig.length === 64 && sig.toString('base64url') === text && isBelowL(sig.subarray(32));
}

/**
 * S < L for S's 32 little-endian bytes. L's top byte is 0x10 and the rest of
 * it is below 2^125, so any other top byte decides alone; only 0x10 takes the
 * bigint (about 1 µs an op, paid by every verified op before this).
 */
export function isBelowL(s: Uint8Array): boolean {
  const top = s[31];
  return top === 0x10 ? readLittleEndian(s) < L : top < 0x10;
}

import { publicKeyOf } from '../op/keys';
import { hasPayload, isScrubbed } from '../op/payload';
import { digestOp } from '../op/sign';
import type { Op } from '../op/types';
import { verifyOps } from '../op/verify';
import type { Findings } from './findings';
import type { Progress } from './progress';
import type { LoggedOp } from './verify-entries';

/** How many ops verify found signed, and how many carried no sig. */
export interface SignatureCounts {
  signed: number;
  unsigned: number;
}

// Ops handed to verifyOps at a time: small enough for the progress bar to move, large enough to keep the pool busy.
const CHUNK = 256;

/**
 * Why an op's digest does not stand for its payload (SIG-6), or undefined when
 * it does. A scrubbed op has no payload left to check (SIG-11); an op with
 * neither nonce nor digest was logged unsigned, or its sig check will say.
 */
export function digestFault(op: Op): string | undefined {
  if (isScrubbed(op)) return undefined;
  if (op.nonce === undefined) return op.digest === undefined ? undefined : 'a digest without its nonce, and a payload';
  if (!hasPayload(op)) return 'a nonce but no payload';
  if (op.digest === undefined) return 'a nonce without a digest';
  return digestOp(op, op.nonce) === op.digest ? undefined : 'its payload does not match its digest: changed after it was signed';
}

/**
 * Check every op's digest against its payload, then its Ed25519 signature
 * against its origin with the engine's verifyOps (on libuv's pool), a chunk
 * at a time so `progress` moves. A bad digest is reported once, not again as
 * a bad signature. An unsigned op is counted, not a fault: a storage opened
 * with `signatures: false` writes them, and 'verify' logs a peer's.
 */
export async function checkSignatures(ops: readonly LoggedOp[], progress: Progress, f: Findings): Promise<SignatureCounts> {
  const counts: SignatureCounts = { signed: 0, unsigned: 0 };
  const badDigest = new Set<LoggedOp>();
  for (const o of ops) {
    const why = digestFault(o.op);
    if (why) { f.fault(o.where, why); badDigest.add(o); }
  }
  for (let i = 0; i < ops.length; i += CHUNK) {
    const chunk = ops.slice(i, i + CHUNK);
    const verdicts = await verifyOps(chunk.map((o) => o.op));
    verdicts.forEach((v, j) => {
      const o = chunk[j];
      if (v === 'unsigned') { counts.unsigned++; return; }
      counts.signed++;
      if (v === 'ok' || badDigest.has(o)) return;
      f.fault(o.where, publicKeyOf(o.op.origin) ? 'its signature does not verify against its origin' : 'its origin is no node id (no Ed25519 key)');
    });
    progress.update(Math.min(ops.length, i + CHUNK));
  }
  progress.finish();
  return counts;
}

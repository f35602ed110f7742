import * as crypto from 'node:crypto';
import { createHash, KeyObject, randomBytes, sign } from 'node:crypto';

// Nonces come from a pool refilled 4 KiB at a time: one randomBytes call per op costs more than the rest of the digest.
let pool = Buffer.alloc(0);
let at = 0;

/** 16 random bytes, base64url (22 characters). */
export function makeNonce(): string {
  if (at + 16 > pool.length) {
    pool = randomBytes(4096);
    at = 0;
  }
  at += 16;
  return pool.subarray(at - 16, at).toString('base64url');
}
import { canonicalJson } from './canonical';
import { payloadOf, scrubOp } from './payload';
import { Op } from './types';

/** The members digestForSigning copies after the five every op has (not sig, digest, nonce). */
const OP_FIELDS = ['scope', 'from', 'data', 'meta', 'key', 'value', 'vector', 'v', 'actor'] as const;

/** The version number that opens the signed header array. */
export const SIG_VERSION = 1;

/**
 * The text an op's sig covers (SIG-5): the JSON array
 * `[1, origin, seq, ts, type, id, scope, from, v, actor, digest]`, absent fields null.
 */
export function sigHeader(op: Op): string {
  return JSON.stringify([
    SIG_VERSION, op.origin, op.seq, op.ts, op.type, op.id,
    op.scope ?? null, op.from ?? null, op.v ?? null, op.actor ?? null, op.digest ?? null,
  ]);
}

/**
 * The digest of an op's payload (SIG-6): base64url SHA-256 of
 * `nonce + "\n" + canonicalJson(payload)`; an op with no payload digests `{}`.
 */
export function digestOp(op: Op, nonce: string): string {
  return sha256(nonce + '\n' + canonicalJson(payloadOf(op) ?? {}));
}

// crypto.hash (Node 20.12+) skips the Hash object, a third of a digest's cost; older Nodes take the long way.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;
const sha256 = oneShot
  ? (text: string) => oneShot('sha256', text, 'base64url')
  : (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

/**
 * The op signed with this node's Ed25519 key: a fresh 16-byte nonce and the
 * digest when it has a payload (SIG-7), none for a delete or purge (SIG-8), and
 * sig over {@link sigHeader}. Runs on the main thread (tens of microseconds).
 *
 * @example
 * const signed = signOp({ origin: nodeIdOf(key), seq: 1, ts: Date.now(), type: 'write', id, data }, key);
 */
export function signOp(op: Op, privateKey: KeyObject): Op {
  const signed = digestForSigning(op);
  signed.sig = sign(null, Buffer.from(sigHeader(signed), 'utf8'), privateKey).toString('base64url');
  return signed;
}

/**
 * Scrub an op for a purge (SIG-10): payload and nonce gone, header kept. An
 * unsigned op with a payload first gets a digest (over a fresh nonce), so the
 * scrubbed op still reads as scrubbed — a no-op — in the log and at a peer.
 */
export function scrubForPurge(op: Op): Op {
  if (op.digest === undefined && payloadOf(op) !== undefined) {
    return scrubOp({ ...op, digest: digestOp(op, makeNonce()) });
  }
  return scrubOp(op);
}

/** An op with its nonce and digest (when it has a payload) and no sig yet: what signOps() signs. */
export function digestForSigning(op: Op): Op {
  const out: Op = { origin: op.origin, seq: op.seq, ts: op.ts, type: op.type, id: op.id };
  for (const field of OP_FIELDS) if (op[field] !== undefined) (out as unknown as Record<string, unknown>)[field] = op[field];
  return addDigest(out);
}

/**
 * Give an op of this node that nothing else holds yet its nonce and digest
 * (when it has a payload), in place: digestForSigning without the copy. The
 * node's own writes are built fresh for it, and a copy made by spreading
 * reads several times slower in every later step (sigHeader, packOp, apply).
 */
export function addDigest(op: Op): Op {
  if (payloadOf(op) !== undefined) {
    op.nonce = makeNonce();
    op.digest = digestOp(op, op.nonce);
  }
  return op;
}

/** Sign one op (through digestForSigning already) on libuv's pool; sets op.sig. */
export function signOpAsync(op: Op, privateKey: KeyObject): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    sign(null, Buffer.from(sigHeader(op), 'utf8'), privateKey, (e, sig) => {
      if (e) return reject(e);
      op.sig = sig.toString('base64url');
      resolve();
    });
  });
}

import { SyncomError } from '../errors';
import { platform, type PlatformKey } from '../platform';
import { canonicalPick } from './canonical';
import { payloadOf, scrubOp } from './payload';
import { Op, PAYLOAD_FIELDS } from './types';

// Nonces come from a pool refilled 4 KiB at a time: one randomBytes call per op costs more than the rest of the digest.
let pool: Uint8Array = new Uint8Array(0);
let at = 0;

/** 16 random bytes, base64url (22 characters). */
export function makeNonce(): string {
  if (at + 16 > pool.length) {
    pool = platform().randomBytes(4096);
    at = 0;
  }
  at += 16;
  return platform().base64url(pool.subarray(at - 16, at));
}

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
 * The text a hello proof signs (sync/protocol/hello-proof.ts): a host's
 * challenge and the node id greeting with it. It opens with a fixed line, so
 * no challenge, which the host chooses, makes it an op's signed header (a
 * JSON array): a hostile host cannot have a dialer sign an op through hello.
 */
export function helloProofText(challenge: string, node: string): string {
  return `syncom hello proof 1\n${challenge}\n${node}`;
}

/**
 * The digest of an op's payload (SIG-6): base64url SHA-256 of
 * `nonce + "\n" + canonicalJson(payload)`; an op with no payload digests `{}`.
 */
export function digestOp(op: Op, nonce: string): string {
  return platform().sha256(nonce + '\n' + canonicalPick(op, SORTED_PAYLOAD_FIELDS));
}

/** The payload fields in code-unit order: canonicalPick of them is canonicalJson(payloadOf(op) ?? {}). */
export const SORTED_PAYLOAD_FIELDS: readonly string[] = [...PAYLOAD_FIELDS].sort();

/**
 * The op signed with this node's Ed25519 key: a fresh 16-byte nonce and the
 * digest when it has a payload (SIG-7), none for a delete or purge (SIG-8), and
 * sig over {@link sigHeader}. Runs on the main thread (tens of microseconds).
 * Synchronous, so Node only: the browser signs asynchronously (signOpAsync).
 *
 * @throws SyncomError UNSUPPORTED where the platform cannot sign synchronously (the browser).
 * @example
 * const signed = signOp({ origin: nodeIdOf(key), seq: 1, ts: Date.now(), type: 'write', id, data }, key);
 */
export function signOp(op: Op, privateKey: PlatformKey): Op {
  const sync = platform().ed25519.sync;
  if (!sync) throw new SyncomError('UNSUPPORTED', 'signOp needs Node.js: use signOpAsync in the browser');
  const signed = digestForSigning(op);
  signed.sig = sync.sign(privateKey, sigHeader(signed));
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

/** Sign one op (through digestForSigning already) off the main thread (libuv's pool, Web Crypto); sets op.sig. */
export async function signOpAsync(op: Op, privateKey: PlatformKey): Promise<void> {
  op.sig = await platform().ed25519.sign(privateKey, sigHeader(op));
}

import { Op, PAYLOAD_FIELDS } from './types';

/** The digested part of an op: only the payload fields it has (Signatures). */
export type Payload = Partial<Pick<Op, (typeof PAYLOAD_FIELDS)[number]>>;

/**
 * The op's payload: an object holding only the payload fields present
 * (data, meta, key, value, vector), or undefined when it has none, as a delete
 * or a purge (DESIGN.md, Signing).
 */
export function payloadOf(op: Op): Payload | undefined {
  let payload: Record<string, unknown> | undefined;
  for (const field of PAYLOAD_FIELDS) {
    if (op[field] === undefined) continue;
    payload ??= {};
    payload[field] = op[field];
  }
  return payload as Payload | undefined;
}

/** True when the op carries any payload field. */
export function hasPayload(op: Op): boolean {
  return PAYLOAD_FIELDS.some((field) => op[field] !== undefined);
}

/**
 * True for an op a purge scrubbed: digest kept, nonce and payload gone. Its
 * header still verifies and it applies as a no-op (SIG-10, SIG-11).
 */
export function isScrubbed(op: Op): boolean {
  return op.digest !== undefined && op.nonce === undefined && !hasPayload(op);
}

/**
 * The op as a purge leaves it in the log: header, sig and digest kept, the
 * payload fields and the nonce dropped (Signatures; SIG-10).
 *
 * @example
 * isScrubbed(scrubOp(signOp(op, key))) // true, and it still verifies
 */
export function scrubOp(op: Op): Op {
  const scrubbed: Op = { ...op };
  for (const field of PAYLOAD_FIELDS) delete scrubbed[field];
  delete scrubbed.nonce;
  return scrubbed;
}

/**
 * Stable error codes. Codes are API: tests and applications match on them,
 * messages are for people.
 */
export type SyncomErrorCode =
  | 'OP_REFUSED'
  | 'OP_INVALID'
  | 'OP_MALFORMED'
  | 'OP_UNREADABLE'
  | 'SKEW'
  | 'UNPERSISTED'
  | 'BAD_SIGNATURE'
  | 'UNSIGNED'
  | 'KIND_CLASH'
  | 'NOT_FOUND'
  | 'PURGED'
  | 'CLOSED'
  | 'INVALID_ARGUMENT'
  | 'IO_ERROR'
  | 'NOT_A_STORAGE'
  | 'FOREIGN_EPOCH'
  | 'BAD_EVENT_ID'
  | 'NOT_SEALABLE'
  /** open() of a storage path another open storage holds (status 423). */
  | 'LOCKED'
  | (string & {});

/** Extra facts an error may carry: the peer, the op, counts, the host's status. */
export interface SyncomErrorDetails {
  status?: number;
  url?: string;
  field?: string;
  op?: unknown;
  count?: number;
  cause?: unknown;
  [key: string]: unknown;
}

/**
 * The one error class of syncom. `code` is stable; `status` is the host's
 * numeric answer where there was one (403, 413, 428, 429).
 *
 * @example
 * try { await storage.update(id, { views: 10 }) }
 * catch (e) { if (e instanceof SyncomError && e.code === 'KIND_CLASH') ... }
 */
export class SyncomError extends Error {
  readonly code: SyncomErrorCode;
  status?: number;
  url?: string;
  field?: string;
  op?: unknown;
  count?: number;
  [key: string]: unknown;

  constructor(code: SyncomErrorCode, message: string, details: SyncomErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'SyncomError';
    this.code = code;
    for (const [k, v] of Object.entries(details)) if (k !== 'cause' && v !== undefined) this[k] = v;
  }
}

/** True when `e` is a SyncomError, optionally with the given code. */
export function isSyncomError(e: unknown, code?: SyncomErrorCode): e is SyncomError {
  return e instanceof SyncomError && (code === undefined || e.code === code);
}

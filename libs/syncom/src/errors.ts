import { CODES, type SyncomErrorCode } from './error-codes';

export type { ErrorCodeGroup, ErrorCodeInfo, ErrorCodeTable, SyncomErrorCode } from './error-codes';

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
 * The one error class of syncom. `code` is one of ERROR_CODES (a closed
 * union: the compiler refuses a code the table lacks); `status` is the
 * host's numeric answer where there was one (403, 413, 428, 429).
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
/** What sync met (an app's link or hook throwing anything), as an error with a code: a SyncomError as it is, else SYNC_FAILED with it as cause. */
export function syncFailure(e: unknown): SyncomError {
  return e instanceof SyncomError ? e : new SyncomError('SYNC_FAILED', (e as Error)?.message ?? String(e), { cause: e });
}

export function isSyncomError(e: unknown, code?: SyncomErrorCode): e is SyncomError {
  return e instanceof SyncomError && (code === undefined || e.code === code);
}

/** True when `value` is a code of ERROR_CODES (own keys only: `toString` is none). */
export function isSyncomErrorCode(value: unknown): value is SyncomErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CODES, value);
}

/** The longest unlisted code kept, as `remoteCode`, from a far side's error. */
export const MAX_REMOTE_CODE = 64;

/**
 * The code of an error that came from the far side of a link. A listed code
 * stays; anything else (a newer host's code, a hostile host's arbitrary
 * string) becomes `fallback`, so codes stay a closed, bounded set on this
 * side too: callers match on them and metrics are keyed by them. An unlisted
 * string is returned cut short as `remoteCode`, for people.
 *
 * @example
 * const { code, remoteCode } = remoteErrorCode(wire.code);
 * throw new SyncomError(code, wire.message, { remoteCode });
 */
export function remoteErrorCode(value: unknown, fallback: SyncomErrorCode = 'REMOTE_ERROR'): { code: SyncomErrorCode; remoteCode?: string } {
  if (isSyncomErrorCode(value)) return { code: value };
  return { code: fallback, remoteCode: typeof value === 'string' ? value.slice(0, MAX_REMOTE_CODE) : undefined };
}

/** The most of a far side's message a refusal keeps (characters). */
export const MAX_REMOTE_MESSAGE = 4096;

/**
 * A far side's message, cut to MAX_REMOTE_MESSAGE before its last whitespace
 * there: a host may word a refusal at up to a frame's size (16 MiB), which
 * each peer's `lastError`, the `error` event and a failed span kept whole.
 * Cut at a space, so a token the words quote is whole or gone, never cut
 * short where a later scrub (hideTokens) could not find it.
 */
function remoteWords(message: string): string {
  if (message.length <= MAX_REMOTE_MESSAGE) return message;
  const cut = message.slice(0, MAX_REMOTE_MESSAGE);
  const space = cut.search(/\s\S*$/);
  return `${space > 0 ? cut.slice(0, space) : ''} … (${message.length} characters, cut)`;
}

/**
 * The SyncomError a refusal from the far side of a link stands for: its code
 * (remoteErrorCode), status and message, and what a refusal carries for the
 * dialer to act on: the wire versions a 426 names, the challenge of a 401
 * UNPROVEN (bounded here; the dialer checks its form before it signs).
 */
export function errorFromWire(error: unknown, fallback: (code: string) => string): SyncomError {
  const src = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const { code, remoteCode } = remoteErrorCode(src.code);
  const message = typeof src.message === 'string' ? remoteWords(src.message) : fallback(remoteCode ?? code);
  const details: Record<string, unknown> = typeof src.status === 'number' ? { status: src.status, remoteCode } : { remoteCode };
  if (Array.isArray(src.versions) && src.versions.every((v) => Number.isSafeInteger(v))) details.versions = [...src.versions];
  if (typeof src.challenge === 'string' && src.challenge.length <= 128) details.challenge = src.challenge;
  return new SyncomError(code, message, details);
}

/**
 * An OS error (node:fs's, or a backend's fs-like one) met at `path`, as
 * IO_ERROR naming the path, the error its cause: a code callers can match
 * on, and a path an operator can go and look at. A SyncomError stays.
 */
export function ioError(path: string | undefined, cause: unknown): SyncomError {
  if (cause instanceof SyncomError) return cause;
  return new SyncomError('IO_ERROR', `${path === undefined ? '' : `${path}: `}${(cause as Error)?.message ?? String(cause)}`, { path, cause });
}

/**
 * Where a code shows up: a local call's rejection (`storage`), a peer's op
 * reported on `storage.on('error')` (`ops`), replication on
 * `storage.sync.on('error')` and the host's answers (`sync`), a link's own
 * failure (`link`), the Nest module and the apps (`app`).
 */
export type ErrorCodeGroup = 'storage' | 'ops' | 'sync' | 'link' | 'app';

/** One row of ERROR_CODES. */
export interface ErrorCodeInfo {
  /** The HTTP-like status an error of this code carries; absent where none applies or it varies. */
  readonly status?: number;
  readonly group: ErrorCodeGroup;
  /** When the code is raised, in one line (in the browser entry, a pointer to docs/api.md: the text stays out of its bundle). */
  readonly what: string;
}

/**
 * Every code a SyncomError may carry, thrown here or sent over the wire, with
 * its status and group. Codes are API: applications match on them, so this
 * is the one place a code is added; its meaning goes in error-text.ts (the
 * compiler holds that table to this one), and docs/api.md is checked against
 * both. Kept apart from the text so that the browser bundle, which every
 * module's errors reach, carries only this.
 */
export const CODES = {
  KIND_CLASH: { group: 'storage' },
  NOT_FOUND: { group: 'storage' },
  PURGED: { group: 'storage' },
  CLOSED: { group: 'storage' },
  INVALID_ARGUMENT: { group: 'storage' },
  NOT_SEALABLE: { group: 'storage' },
  LOCKED: { status: 423, group: 'storage' },
  IO_ERROR: { group: 'storage' },
  UNPERSISTED: { group: 'storage' },
  OP_UNREADABLE: { group: 'storage' },
  STORE_DAMAGED: { group: 'storage' },
  STORE_TOO_NEW: { group: 'storage' },
  UNSUPPORTED: { group: 'storage' },

  OP_INVALID: { group: 'ops' },
  OP_REFUSED: { group: 'ops' },
  OP_MALFORMED: { group: 'ops' },
  SKEW: { group: 'ops' },
  BAD_SIGNATURE: { group: 'ops' },
  UNSIGNED: { status: 403, group: 'ops' },

  UNAUTHORIZED: { status: 401, group: 'sync' },
  AUTHORIZE_FAILED: { status: 503, group: 'sync' },
  UNPROVEN: { status: 401, group: 'sync' },
  BAD_HELLO: { status: 400, group: 'sync' },
  BAD_REQUEST: { status: 400, group: 'sync' },
  SCOPES: { status: 403, group: 'sync' },
  OUT_OF_SCOPE: { status: 403, group: 'sync' },
  INCOMPATIBLE: { status: 426, group: 'sync' },
  SELF_DIAL: { group: 'sync' },
  HELLO_REQUIRED: { status: 428, group: 'sync' },
  HANDSHAKE_LOOP: { status: 428, group: 'sync' },
  OPS_PER_PUSH: { status: 413, group: 'sync' },
  BYTES_PER_PUSH: { status: 413, group: 'sync' },
  MESSAGE_TOO_LARGE: { status: 413, group: 'sync' },
  OPS_PER_SECOND: { status: 429, group: 'sync' },
  PURGES_PER_SECOND: { status: 429, group: 'sync' },
  READ_BACKLOG: { status: 429, group: 'sync' },
  TOO_MANY_FEEDS: { status: 429, group: 'sync' },
  TOO_MANY_STREAMS: { status: 429, group: 'sync' },
  LIMITED: { group: 'sync' },
  RECONCILE_TOO_LARGE: { status: 413, group: 'sync' },
  RECONCILE_MALFORMED: { status: 400, group: 'sync' },
  RECONCILE_UNFINISHED: { group: 'sync' },
  SNAPSHOT_EXPIRED: { status: 410, group: 'sync' },
  SNAPSHOT_NOT_FOUND: { status: 404, group: 'sync' },
  SNAPSHOT_BUSY: { status: 503, group: 'sync' },
  SNAPSHOT_OFFSET: { status: 400, group: 'sync' },
  STREAM_NOT_FOUND: { status: 404, group: 'sync' },
  UNKNOWN_METHOD: { status: 404, group: 'sync' },
  PAGE_FAILED: { group: 'sync' },
  STUCK: { group: 'sync' },
  UNDELIVERABLE: { group: 'sync' },
  REWOUND: { group: 'sync' },
  REGISTRY_UNSAVED: { group: 'sync' },
  SYNC_FAILED: { group: 'sync' },
  SYNC_TIMEOUT: { group: 'sync' },
  FORBIDDEN: { status: 403, group: 'sync' },
  INTERNAL: { status: 500, group: 'sync' },
  HTTP_ERROR: { group: 'sync' },
  REMOTE_ERROR: { group: 'sync' },

  LINK_DOWN: { group: 'link' },
  LINK_TIMEOUT: { group: 'link' },
  ACK_TIMEOUT: { status: 408, group: 'link' },
  BAD_ANSWER: { group: 'link' },
  FRAME_TOO_LARGE: { group: 'link' },

  GATEWAY_UNGUARDED: { group: 'app' },
  GATEWAY_UNDECLARED: { group: 'app' },
  GATEWAY_NAMESPACE_TAKEN: { group: 'app' },
  HUB_CONFIG: { group: 'app' },
  SOCKETS_PER_TOKEN: { status: 429, group: 'app' },
} as const satisfies Record<string, Omit<ErrorCodeInfo, 'what'>>;

/** A code of ERROR_CODES: the compiler refuses any other string. */
export type SyncomErrorCode = keyof typeof CODES;

/** ERROR_CODES' type: each code's status and group as CODES has them, and its meaning. */
export type ErrorCodeTable = { readonly [K in SyncomErrorCode]: (typeof CODES)[K] & { readonly what: string } };

/** CODES with each code's meaning: `what(code)`. */
export function errorCodeTable(what: (code: SyncomErrorCode) => string): ErrorCodeTable {
  const table: Record<string, ErrorCodeInfo> = {};
  for (const [code, info] of Object.entries(CODES)) table[code] = { ...info, what: what(code as SyncomErrorCode) };
  return table as ErrorCodeTable;
}

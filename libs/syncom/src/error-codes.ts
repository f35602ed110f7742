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
  /** When the code is raised, in one line. */
  readonly what: string;
}

/**
 * Every code a SyncomError may carry, thrown here or sent over the wire, with
 * its status and meaning. Codes are API: applications match on them, so the
 * table is the one place a code is added; docs/api.md is checked against it.
 */
export const ERROR_CODES = {
  KIND_CLASH: { group: 'storage', what: 'a local call uses a field as a second kind ("views is a counter; use inc()")' },
  NOT_FOUND: { group: 'storage', what: 'update/inc/add on a record that does not exist (or is deleted), or a node that is not registered' },
  PURGED: { group: 'storage', what: 'a write to a purged id' },
  CLOSED: { group: 'storage', what: 'a write after `close()` was called' },
  INVALID_ARGUMENT: { group: 'storage', what: 'a bad call: not a plain object, a `__proto__` field, a value nested deeper than 100 levels, a bad option' },
  NOT_SEALABLE: { group: 'storage', what: '`{ sealed: true }` on a record that exists unsealed (a tombstone too): its values may already have replicated' },
  LOCKED: { status: 423, group: 'storage', what: '`open()` of a path another open storage holds (the message names the holder\'s pid)' },
  IO_ERROR: { group: 'storage', what: 'a log append failed (the write was not made and is rejected), or a purge scrub failed' },
  UNPERSISTED: { group: 'storage', what: 'a record file write failed after the log append: the op stands and is held in memory' },
  OP_UNREADABLE: { group: 'storage', what: 'a log or record file that cannot be parsed (reported at open)' },
  UNSUPPORTED: { group: 'storage', what: 'a feature this platform lacks: sealed records or a synchronous `signOp` in the browser, Web Crypto missing (no secure context)' },

  OP_INVALID: { group: 'ops', what: 'a validator refused a local write (thrown) or a peer\'s op (error event; the op is skipped, still logged and relayed)' },
  OP_REFUSED: { group: 'ops', what: 'a peer\'s op used a field as another kind: that field is refused, the rest applies' },
  OP_MALFORMED: { group: 'ops', what: 'a peer\'s op with a bad shape: neither applied, logged nor relayed' },
  SKEW: { group: 'ops', what: 'a peer\'s op stamped more than `maxSkew` ahead of this node\'s clock' },
  BAD_SIGNATURE: { group: 'ops', what: 'a peer\'s op whose signature fails' },
  UNSIGNED: { status: 403, group: 'ops', what: 'an unsigned op under `\'require\'` (an error event, no status), or a hello a signing host refuses because the node id is no key (403)' },

  UNAUTHORIZED: { status: 401, group: 'sync', what: '`authorize` answered false or threw, or access `\'session\'` without an authenticated connection' },
  BAD_HELLO: { status: 400, group: 'sync', what: 'a hello of the wrong shape' },
  BAD_REQUEST: { status: 400, group: 'sync', what: 'a request of the wrong shape' },
  SCOPES: { status: 403, group: 'sync', what: 'a hello or a call naming scopes that were not granted' },
  OUT_OF_SCOPE: { status: 403, group: 'sync', what: 'a host refused ops outside this node\'s scopes: that stream stops there' },
  INCOMPATIBLE: { status: 426, group: 'sync', what: 'no wire version shared (the error names the host\'s versions)' },
  SELF_DIAL: { group: 'sync', what: 'a registered url answered hello with this node\'s own id: it leads back to this node, whose dialer stops' },
  HELLO_REQUIRED: { status: 428, group: 'sync', what: 'a call without a current hello (the host restarted): the dialer greets again' },
  HANDSHAKE_LOOP: { status: 428, group: 'sync', what: 'five 428s to fresh hellos in a row' },
  OPS_PER_PUSH: { status: 413, group: 'sync', what: 'a push with more ops than the host takes' },
  BYTES_PER_PUSH: { status: 413, group: 'sync', what: 'a push larger than the host takes' },
  MESSAGE_TOO_LARGE: { status: 413, group: 'sync', what: 'a message over the bounds of a socket that has not greeted (the socket is closed)' },
  OPS_PER_SECOND: { status: 429, group: 'sync', what: 'a push over the token\'s rate' },
  TOO_MANY_FEEDS: { status: 429, group: 'sync', what: 'more changes feeds on one connection than the host allows' },
  TOO_MANY_STREAMS: { status: 429, group: 'sync', what: 'more snapshot streams on one connection than the host allows' },
  LIMITED: { group: 'sync', what: 'a 413 or 429 refusal that carried no listed code through a link of the application\'s own (syncom\'s links make that REMOTE_ERROR)' },
  RECONCILE_TOO_LARGE: { status: 413, group: 'sync', what: 'a reconcile message over the host\'s frame' },
  RECONCILE_MALFORMED: { status: 400, group: 'sync', what: 'a reconcile message the module refuses (either side)' },
  RECONCILE_UNFINISHED: { group: 'sync', what: 'a reconciliation that did not end in 64 rounds' },
  SNAPSHOT_EXPIRED: { status: 410, group: 'sync', what: 'a snapshot paging that ended' },
  SNAPSHOT_NOT_FOUND: { status: 404, group: 'sync', what: 'a snapshot paging of another connection or session' },
  SNAPSHOT_BUSY: { status: 503, group: 'sync', what: 'the host holds as many snapshot pagings as it allows: try again shortly' },
  STREAM_NOT_FOUND: { status: 404, group: 'sync', what: 'a snapshot stream of another connection or session' },
  UNKNOWN_METHOD: { status: 404, group: 'sync', what: 'a procedure the host does not serve' },
  PAGE_FAILED: { group: 'sync', what: 'a changes or snapshot page that could not be applied (a `beforeApply` that throws, a stamp over `maxSkew`)' },
  STUCK: { group: 'sync', what: 'the third failed page in a row' },
  UNDELIVERABLE: { group: 'sync', what: 'the host lacks own ops this node\'s log no longer holds' },
  REWOUND: { group: 'sync', what: 'the host holds more of this node\'s streams than its log: the directory was restored from an older copy' },
  REGISTRY_UNSAVED: { group: 'sync', what: 'a registered node\'s file could not be written; its cursor stands in memory' },
  SYNC_FAILED: { group: 'sync', what: 'a replication step failed with something that was no SyncomError (the cause is attached)' },
  SYNC_TIMEOUT: { group: 'sync', what: 'storage.sync.synced(url, { timeout }) was not in sync with that node in time' },
  FORBIDDEN: { status: 403, group: 'sync', what: 'a guard of the host\'s gateway refused the message' },
  INTERNAL: { status: 500, group: 'sync', what: 'the host failed to handle a message (it logs the cause; none is sent)' },
  HTTP_ERROR: { group: 'sync', what: 'the host\'s gateway threw an HTTP exception other than 400 (its status is kept)' },
  REMOTE_ERROR: { group: 'sync', what: 'the far side failed with a code this side does not list (kept as `remoteCode`) or none' },

  LINK_DOWN: { group: 'link', what: 'the link is down: calls fail until it reconnects' },
  LINK_TIMEOUT: { group: 'link', what: 'a call got no answer in time; it may or may not have run at the host' },
  ACK_TIMEOUT: { status: 408, group: 'link', what: 'a host\'s page was not acknowledged in time: the feed is dropped and the dialer resumes it' },
  BAD_ANSWER: { group: 'link', what: 'an answer that is no syncom answer (is the url a syncom gateway?)' },

  GATEWAY_UNGUARDED: { group: 'app', what: 'a hosted gateway with neither `authorize` nor `access: \'public\'`: the app refuses to start' },
  GATEWAY_UNDECLARED: { group: 'app', what: 'a `forRootAsync` factory returned gateway options the module was not declared with' },
  HUB_CONFIG: { group: 'app', what: 'a hub environment variable that does not parse: the hub exits 1 naming it' },
  SOCKETS_PER_TOKEN: { status: 429, group: 'app', what: 'a hub socket past `SYNCOM_SOCKETS_PER_TOKEN` for its token: refused at the handshake' },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of ERROR_CODES: the compiler refuses any other string. */
export type SyncomErrorCode = keyof typeof ERROR_CODES;

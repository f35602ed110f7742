import { errorCodeTable, type ErrorCodeInfo, type SyncomErrorCode } from './error-codes';

/** When each code is raised, in one line: the `what` of ERROR_CODES (the Node entry's; docs/api.md is checked against it). */
const ERROR_TEXT: { readonly [K in SyncomErrorCode]: string } = {
  KIND_CLASH: 'a local call uses a field as a second kind ("views is a counter; use inc()")',
  NOT_FOUND: 'update/inc/add on a record that does not exist (or is deleted), or a node that is not registered',
  PURGED: 'a write to a purged id',
  CLOSED: 'a write, or a sync call that could dial or write, after `close()` was called; a closed storage\'s host unit answers every call with it',
  INVALID_ARGUMENT: 'a bad call: not a plain object, a `__proto__` field, a value nested deeper than 100 levels, a bad option; on the sync `error` event, a `connect(node)` that gave no `SyncLink`',
  NOT_SEALABLE: '`{ sealed: true }` on a record that exists unsealed (a tombstone too): its values may already have replicated',
  LOCKED: '`open()` of a path another open storage holds (on node:fs the message names the holder\'s pid; on OPFS that another tab, worker or open() of this page has the store open, and `wait: true` waits for it)',
  IO_ERROR: 'a log append failed (the write was not made and is rejected; reported on `error` too), a purge scrub failed, or a file of the store could not be read at open for a reason other than absence (a directory in its place; on OPFS also a file the browser cannot read), or `open()` could not make the storage folder itself (a file at `path` or above it; a read-only mount, `EROFS`, however deep under it the path\'s missing folders start, which Node\'s recursive mkdir had reported as `ENOENT`), or could not write what it writes before anything is open (format.json, a key file, the log\'s index, a folder: a read-only store, a full disk): the message names the path, the OS error (on OPFS an fs-like one, the DOMException its cause) is the cause',
  UNPERSISTED: 'a record file write failed after the log append: the op stands and is held in memory',
  OP_UNREADABLE: 'a log, record or registry file that cannot be parsed or does not check (reported at open; its positions a hole, records rebuilt from the log)',
  STORE_DAMAGED: '`open()` of a store whose files were damaged or lost after they were written (a missing `log/index.json` beside its segments, half a key pair, keys that do not match), or holding a file whose parse would not fit in the heap left (garbage put there, or a store past this heap: `node --max-old-space-size`): refused rather than starting over, which would lose data or sign a used sequence number again; the message names the file',
  STORE_TOO_NEW: '`open()` (and `syncom verify`) of a store a later version of syncom wrote in a newer format (`format.json`): refused before anything is read or written, as this version could misread its files and lose data; open it with that version, or a copy from before the upgrade',
  UNSUPPORTED: 'a feature this platform lacks: sealed records or a synchronous `signOp` in the browser, Web Crypto missing (no secure context), `opfsBackend()` on a page without OPFS or its writable streams',

  OP_INVALID: 'a validator refused a local write (thrown) or a peer\'s op (error event; the op is skipped, still logged and relayed), or an own stream has no seq left below 2^53',
  OP_REFUSED: 'a peer\'s op used a field as another kind: that field is refused, the rest applies',
  OP_MALFORMED: 'a peer\'s op with a bad shape: neither applied, logged nor relayed',
  SKEW: 'a peer\'s op stamped more than `maxSkew` ahead of this node\'s clock',
  BAD_SIGNATURE: 'a peer\'s op whose signature fails',
  UNSIGNED: 'an unsigned op under `\'require\'` (an error event, no status), or a hello a signing host refuses because the node id is no key (403); also joined ops this node could not sign yet (an error event on the storage: they stay unsent, and are signed again)',

  UNAUTHORIZED: '`authorize` answered neither `true` nor a non-empty string (an identity), or threw, or access `\'session\'` without an authenticated connection',
  AUTHORIZE_FAILED: '`authorize` threw a SyncomError AUTHORIZE_FAILED (or of a 5xx status) at a hello or a session handshake: it could not judge (its token store down), or did not answer within the unit\'s `authorizeTimeout` (10 s); the dialer greets again, backed off',
  UNPROVEN: 'a host that asks peers to prove their node id (`proveNodes`) refused a hello without a valid signature of its challenge, which the refusal carries (`challenge`)',
  BAD_HELLO: 'a hello of the wrong shape, or a host\'s answer to one (the dialer reports it and does not greet that host again until the link reconnects): its `node` no node id an op may carry (no `@` nor `<`), say',
  BAD_REQUEST: 'a request of the wrong shape',
  SCOPES: 'a hello or a call naming scopes that were not granted',
  OUT_OF_SCOPE: 'a host refused ops as out of scope (a record outside the scopes this node was granted, or one the host\'s scope rule places in another scope than the op declared: give the node the host\'s rule, `sync.scope`): that stream stops there',
  INCOMPATIBLE: 'no wire version shared (the error names the host\'s versions)',
  SELF_DIAL: 'a registered url answered hello with this node\'s own id: it leads back to this node, whose dialer stops',
  HELLO_REQUIRED: 'a call without a current hello (the host restarted): the dialer greets again; also a hello that its connection\'s disconnect or a later hello overtook while `authorize` judged it (it grants nothing)',
  HANDSHAKE_LOOP: 'five 428s to fresh hellos in a row',
  OPS_PER_PUSH: 'a push with more ops than the host takes',
  BYTES_PER_PUSH: 'a push larger than the host takes; on a dialer, an op larger than the host named in hello, not pushed (the error names its `stream` and `seq`; that stream stops for that host)',
  MESSAGE_TOO_LARGE: 'a message over the bounds of a socket that has not greeted (the socket is closed)',
  OPS_PER_SECOND: 'a push over the token\'s rate',
  PURGES_PER_SECOND: 'a push whose purges are over the token\'s purge rate (`limits.purgesPerSecond`)',
  READ_BACKLOG: 'a call on a connection whose answers wait unread past the host\'s bounds, or with four calls already in progress: read them, then ask again',
  TOO_MANY_FEEDS: 'more changes feeds on one connection than the host allows',
  TOO_MANY_STREAMS: 'more snapshot streams on one connection than the host allows',
  LIMITED: 'a 413 or 429 refusal that carried no listed code through a link of the application\'s own (syncom\'s links make that REMOTE_ERROR)',
  RECONCILE_TOO_LARGE: 'a reconcile message over the host\'s frame',
  RECONCILE_MALFORMED: 'a reconcile message the module refuses (either side)',
  RECONCILE_UNFINISHED: 'a reconciliation that did not end in 64 rounds',
  SNAPSHOT_EXPIRED: 'a snapshot paging that ended',
  SNAPSHOT_NOT_FOUND: 'a snapshot paging of another connection or session',
  SNAPSHOT_BUSY: 'the host holds as many snapshot pagings as it allows: try again shortly',
  SNAPSHOT_OFFSET: 'a snapshot page asked at an offset past the pages its paging served (a first page starts at 0)',
  STREAM_NOT_FOUND: 'a snapshot stream of another connection or session',
  UNKNOWN_METHOD: 'a procedure the host does not serve',
  PAGE_FAILED: 'a changes or snapshot page that could not be applied (a `beforeApply` that throws, a stamp over `maxSkew`); a Nest gateway answers its peer without the hook\'s error text, which goes to the host\'s log',
  STUCK: 'the third failed page in a row',
  UNDELIVERABLE: 'the host lacks own ops this node\'s log no longer holds',
  REWOUND: 'the host holds more of this node\'s streams than its log: the directory was restored from an older copy',
  REGISTRY_UNSAVED: 'a registered node\'s file could not be written (its cursor stands in memory) or removed (the node is no longer dialed; call `removeNode()` again, and until then every own op is kept for it)',
  SYNC_FAILED: 'a replication step failed with something that was no SyncomError (the cause is attached)',
  SYNC_TIMEOUT: 'storage.sync.synced(url, { timeout }) was not in sync with that node in time',
  FORBIDDEN: 'a guard of the host\'s gateway refused the message',
  INTERNAL: 'the host failed to handle a message (it logs the cause; none is sent), or a changes feed failed on the host\'s side, a signing of what it serves or a read (its subscriber subscribes again after a wait)',
  HTTP_ERROR: 'the host\'s gateway threw an HTTP exception other than 400 (its status is kept)',
  REMOTE_ERROR: 'the far side failed with a code this side does not list (kept as `remoteCode`) or none',

  LINK_DOWN: 'the link is down: calls fail until it reconnects',
  LINK_TIMEOUT: 'a call got no answer in time; it may or may not have run at the host',
  ACK_TIMEOUT: 'a host\'s page was not acknowledged in time: the feed is dropped and the dialer resumes it',
  BAD_ANSWER: 'an answer that is no syncom answer (is the url a syncom gateway?), or a hello answer claiming more of this node\'s streams than a seq can count',
  FRAME_TOO_LARGE: 'a frame from the host over the socket\'s maxPayload (16 MiB unless the app set it): a record that large needs a larger maxPayload; the connection is dialed again, backed off',

  GATEWAY_UNGUARDED: 'a hosted gateway with neither `authorize` nor `access: \'public\'`: the app refuses to start',
  GATEWAY_UNDECLARED: 'a `forRootAsync` factory returned gateway options the module was not declared with',
  GATEWAY_NAMESPACE_TAKEN: 'two syncom gateways in one app on one socket.io namespace (both would answer every message): the app refuses to start',
  HUB_CONFIG: 'a hub environment variable that does not parse: the hub exits 1 naming it',
  SOCKETS_PER_TOKEN: 'a hub socket past `SYNCOM_SOCKETS_PER_TOKEN` for its token: refused at the handshake',
};

/**
 * Every code a SyncomError may carry, with its status, group and meaning.
 * Codes are API: applications match on them.
 */
export const ERROR_CODES = errorCodeTable((code) => ERROR_TEXT[code]);

/** What ERROR_CODES says of a code: its status where one applies, and its meaning. */
export function errorCodeInfo(code: SyncomErrorCode): ErrorCodeInfo {
  return ERROR_CODES[code];
}

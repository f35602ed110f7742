/**
 * The span names syncom emits (OPT-16). One name per protocol step;
 * `syncom.role` and the span kind say which side of the link made it.
 */
export const SPANS = {
  /** A hello: sent by a dialer (CLIENT), answered by a host (SERVER). */
  hello: 'syncom.hello',
  /** A push page: sent by a dialer (CLIENT), received by a host (SERVER). */
  push: 'syncom.push',
  /** A changes page a dialer applied (CONSUMER). */
  changesPage: 'syncom.changes.page',
  /** A snapshot page: fetched and joined by a dialer (CLIENT, under syncom.bootstrap), served by a host (SERVER). */
  snapshotPage: 'syncom.snapshot.page',
  /** A whole bootstrap from a host, its snapshot pages as children. */
  bootstrap: 'syncom.bootstrap',
  /** A range-based reconciliation round with a peer. */
  reconciliation: 'syncom.reconciliation',
} as const;

/** The metric names syncom emits (OPT-16). */
export const METRICS = {
  /** Counter: peer ops applied, by role. */
  opsApplied: 'syncom.ops.applied',
  /** Counter: peer ops refused, by reason (see {@link RejectReason}), role and peer. */
  opsRejected: 'syncom.ops.rejected',
  /** Counter: push pages refused by a host's limits, by reason (OPS_PER_PUSH, BYTES_PER_PUSH, OPS_PER_SECOND, PURGES_PER_SECOND; READ_BACKLOG from the Nest gateway), role and peer. */
  opsLimited: 'syncom.ops.limited',
  /** Gauge: peers connected, by role (dialer: dialed hosts greeted; host: peers with a live changes feed). */
  peersConnected: 'syncom.peers.connected',
  /** Gauge: ops retained in the log (head - floor). */
  logOps: 'syncom.log.ops',
  /** Gauge: the log's floor, the position below which ops were dropped by retention. */
  logFloor: 'syncom.log.floor',
  /** Gauge: ops a peer is behind this node, by role and peer (the counters' named peers; the rest as '(other)', the largest lag of them; 0 once not live). */
  syncLag: 'syncom.sync.lag',
} as const;

/** The attribute keys on syncom's spans and metrics. */
export const ATTRS = {
  /** This node's id (metrics only): tells storages of one process apart. */
  node: 'syncom.node',
  /** The other side: a dialer's registered url without user info, query or fragment (urlLabel), or the node id a host greeted. */
  peer: 'syncom.peer',
  /** 'dialer' or 'host'. */
  role: 'syncom.role',
  /** Why ops were rejected or limited. */
  reason: 'reason',
  /** Ops in a page. */
  ops: 'syncom.ops',
  /** Ops of a page applied. */
  applied: 'syncom.applied',
  /** Entries of a snapshot page, records of a bootstrap. */
  entries: 'syncom.entries',
  /** A snapshot page's offset. */
  offset: 'syncom.offset',
  /** The SyncomError code of a failed span (OpenTelemetry's error.type). */
  errorType: 'error.type',
} as const;

/** Which side of a link: the node that dialed, or the node that hosts. */
export type Role = 'dialer' | 'host';

/** Why a peer's op was refused (syncom.ops.rejected's reason). */
export type RejectReason = 'forged' | 'unsigned' | 'malformed' | 'skew' | 'scope' | 'invalid';

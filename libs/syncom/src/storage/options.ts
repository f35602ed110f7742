import type { Backend } from '../backend/types';
import type { Op } from '../op/types';
import type { SchemaOptions } from '../schema';
import type { DialOptions } from '../sync/manager';
import type { TelemetryOptions } from '../telemetry';

/** The peer an op came from, as beforeApply sees it. */
export interface PeerInfo {
  url: string;
  node: string;
}

/** Hooks take part in an operation; listeners only observe it (LIFE-20). */
export interface StorageHooks {
  /** false skips a peer's op here (it is still logged and relayed, GUAR-13); throwing refuses the page (GUAR-16). */
  beforeApply?: (ctx: { op: Op; peer: PeerInfo }) => boolean | Promise<boolean>;
}

/** open({ sync }) (Options): what the engine core reads, and the dialer's (DialOptions). */
export interface SyncOptions extends Omit<DialOptions, 'hooks'> {
  /** A record's scope, from its data (default: every record is '*'); `data` has a null prototype, for a new record as for a held one. */
  scope?: (id: string, data: Record<string, unknown>) => string;
  retention?: { ops?: number; days?: number };
  /** How far ahead of this clock a peer's stamp may be, ms (default 24 h; Infinity disables). */
  maxSkew?: number;
  /**
   * rollAfter: batches per sealed segment (default 64). segmentOps: ops a
   * segment holds at most, but for one batch larger alone (default no bound:
   * rollAfter batches, LOG-4); a purge rewrites the segments holding its
   * record, so a host taking pushes from untrusted peers bounds them (the hub
   * sets 2,048; docs/security.md). lines: append each
   * batch as a line of the newest open file instead of a file per batch (the
   * spec's layout, the default), where the backend can append (node:fs, memory):
   * an awaited write then creates no file. See docs/guarantees.md.
   */
  log?: { rollAfter?: number; segmentOps?: number; lines?: boolean };
  /** 'verify' (default), 'require' or false (SIG-13..15). */
  signatures?: 'verify' | 'require' | false;
  /**
   * Sign the merge ops of a joined snapshot page after the join, in the
   * background (default true): the page is readable at once, and no such op
   * leaves the node before its sig. false signs them before their append, as
   * every other op (the simulation does, so a seed replays the same run).
   */
  signLate?: boolean;
  hooks?: StorageHooks & DialOptions['hooks'];
}

/** open()'s options (DESIGN: Storage API). */
export interface OpenOptions {
  /** The storage directory. */
  path: string;
  /** 'fs' (default), 'memory', or a Backend of your own. */
  backend?: Backend | 'fs' | 'memory';
  /** Who makes the writes: a string, or a function asked per write (the signed-in user). */
  actor?: string | (() => string | undefined);
  schema?: SchemaOptions;
  /** fsync every write (node:fs). Default false. */
  durable?: boolean;
  hooks?: StorageHooks;
  /** OpenTelemetry (OPT-16): the global providers by default, your own providers, or false for none. */
  telemetry?: TelemetryOptions;
  sync?: SyncOptions;
  /** The wall clock, for tests (default Date.now). */
  now?: () => number;
}

/** Options of a single write. */
export interface WriteOptions {
  /** Overrides open()'s actor for this op (OPS-20). */
  actor?: string;
  /**
   * Seal the record for this node's RSA key alone (GUAR-19): its ops are
   * encrypted in the log and its entry in the record files, and never leave
   * the node. Only a write that makes the record can seal it (NOT_SEALABLE
   * otherwise); once sealed, every later write to it is sealed.
   */
  sealed?: boolean;
}

/** A record as list() returns it. */
export interface RecordMeta {
  scope: string;
  /** Schema version of the last whole-record write. */
  v?: number;
  /** The newest stamp applied to the record. */
  ts: number;
  /** Present and true on a record sealed for this node alone (GUAR-19). */
  sealed?: true;
}

export interface ListedRecord {
  id: string;
  data: Record<string, unknown>;
  meta: RecordMeta;
}

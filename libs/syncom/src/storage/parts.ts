import type { SyncomError } from '../errors';
import type { Backend } from '../backend/types';
import type { BackendLock } from '../backend/lock';
import type { LogEvent, OpLog } from '../log';
import type { Op } from '../op/types';
import type { Schema } from '../schema';
import type { Clock } from './clock';
import type { Committer, Via } from './commit';
import type { Emitter } from './emitter';
import type { HeldStreams } from './held-streams';
import type { NodeKeys } from './keys';
import type { ListedIds } from './listed-ids';
import type { OpenOptions } from './options';
import type { RecordScopes } from './record-scopes';
import type { RecordStore } from './records';

/** The events of a storage (Lifecycle and events). */
export type StorageEvents = {
  change: [op: Op, via: Via | null];
  log: [event: LogEvent];
  apply: [event: { peer: Via; applied: number; skipped: number }];
  error: [error: SyncomError];
  schema: [event: { kind: 'drift'; peer: string; version: number; hash: string; local: { version: number; hash: string } | null } | { kind: 'held-lost'; lost: number }];
};

/** Every name of StorageEvents, for storage.on() to check (the compiler keeps it whole). */
export const STORAGE_EVENT_NAMES: Readonly<Record<keyof StorageEvents, 1>> = { change: 1, log: 1, apply: 1, error: 1, schema: 1 };

/**
 * What open() wires together: the storage's internals. Only storage/ reads
 * them; the sync layer goes through the replica port (replica.ts), tests
 * through `internals()` of 'syncom/testing'.
 */
export interface StorageParts {
  options: OpenOptions;
  keys: NodeKeys;
  clock: Clock;
  log: OpLog;
  committer: Committer;
  records: RecordStore;
  backend: Backend;
  schema?: Schema;
  /** The held ops that wait still, and the streams they hold back (GUAR-26). */
  held: HeldStreams;
  events: Emitter<StorageEvents>;
  /** Ids sealed for this node alone, as open() read them from the records and the log (GUAR-19). */
  sealed: Set<string>;
  /** The scope of each record, kept at every commit. */
  scopes: RecordScopes;
  /** The shown ids in order for list(), kept at every commit once built. */
  listed: ListedIds;
  /** Set once close() began: writes are refused from then on. */
  state: { closed: boolean };
  /** The path's exclusive lock, released at close() (one owner per storage path). */
  lock?: BackendLock;
}

const doors = new WeakMap<object, StorageParts>();

/** Tie a storage (or its replica) to its parts: the one way back to them. */
export function bindParts(owner: object, parts: StorageParts): void {
  doors.set(owner, parts);
}

/**
 * The internals of a storage. For storage/ itself and for tests (through
 * 'syncom/testing'); the sync layer, the CLI and the apps use the replica port.
 * @throws TypeError for an object open() did not make.
 */
export function partsOf(owner: object): StorageParts {
  const p = doors.get(owner);
  if (!p) throw new TypeError('not a storage made by open()');
  return p;
}

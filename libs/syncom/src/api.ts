/**
 * The public API both entries export: `syncom` (index.ts, Node's platform)
 * and `syncom/browser` (browser.ts, the browser's). Each entry installs its
 * platform first, then adds its own backends and its ERROR_CODES (Node's
 * with each code's meaning, error-text.ts; the browser's without the text).
 * The hosting side (the unit, its bounds and a gateway's limit helpers) is
 * `syncom/host` (host.ts), which `syncom` re-exports and the browser's leaves
 * to the app that hosts.
 */
export { SyncomError, isSyncomError } from './errors';
export { isSyncomErrorCode, MAX_REMOTE_CODE, remoteErrorCode } from './errors';
export type { ErrorCodeGroup, ErrorCodeInfo, ErrorCodeTable } from './errors';
export type { SyncomErrorCode, SyncomErrorDetails } from './errors';
export { open } from './open';
export { checkOptionShape, nearest as nearestName, OPEN_OPTION_KEYS, type OptionRule, type OptionShape } from './open-options';
export { Storage, RecordHandle, Replica, applyPeerOps, createClock, scopeByField } from './storage';
export type {
  ApplyCounts, Clock, ListedRecord, LogShape, ReplicaSubmit, OpenOptions, PeerApplyOptions, PeerApplyResult, PeerInfo, RecordMeta, ScopeFunction,
  StorageEvents, StorageHooks, SyncOptions, Via, WriteOptions,
} from './storage';
export { canonicalJson, checkOp, isScopeName, MAX_SCOPE_NAME, MAX_SCOPE_NAMES, packOps, unpackOps, signOp, signOpAsync, helloProofText, verifyOps, streamKey, GLOBAL_SCOPE } from './op';
export type { Op, OpType, Stamp, Vector, PackedOp, Verdict } from './op';
export { applyOp, joinEntries, readEntry, compareStamps } from './crdt';
export type { Entry, Field } from './crdt';
export { formatEventId, parseEventId, OpLog } from './log';
export type { LogEntry, LogEvent } from './log';
export { createSchema, provideSchemaPeers } from './schema';
export type { Schema, SchemaInfo, SchemaOptions, SchemaPeers } from './schema';
export { createMemoryLink, isSyncLink, LinkListeners, safely } from './link';
export type { HostUnit, LinkEvent, MemoryLink, MemoryLinkOptions, LinkFaults, SubscribeOptions, Subscription, SyncLink } from './link';
export { type SyncApi, SyncManager } from './sync';
export type { DialOptions, Hello, HelloAnswer, Limits, NodeRecord, Session, SyncEvents, UnitOptions } from './sync';
export { type Authorized, checkHello, DEFAULT_CONNECTION_IN_FLIGHT_BYTES, DEFAULT_MAX_IN_FLIGHT_BYTES, MAX_IN_FLIGHT_FRAMES } from './sync';
export { ATTRS as TELEMETRY_ATTRS, installTelemetry, METRICS as TELEMETRY_METRICS, SPANS as TELEMETRY_SPANS, SyncTelemetry, hideTokens, urlLabel } from './telemetry';
export type { OtelApi, PageOutcome, RejectReason, Role as TelemetryRole, TelemetryOptions } from './telemetry';
export {
  createReconciler, decodeMessage as decodeReconcileMessage, entryDigest, entryItem, MAX_FRAME_LIMIT as RECONCILE_MAX_FRAME_LIMIT,
  MIN_FRAME_LIMIT as RECONCILE_MIN_FRAME_LIMIT, MODE as RECONCILE_MODES, RECONCILE_DEFAULTS, RECONCILE_VERSION, WIRE_LIMITS as RECONCILE_LIMITS,
} from './reconcile';
export type {
  Bound as ReconcileBound, DecodeResult as ReconcileDecodeResult, Message as ReconcileMessage, Range as ReconcileRange,
  ReconcileItem, ReconcileOutcome, ReconcileRefusal, ReconcileStep, Reconciler, ReconcilerOptions,
} from './reconcile';
export { installPlatform, platform } from './platform';
export type { Platform, PlatformKey } from './platform';

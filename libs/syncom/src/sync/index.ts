export type { DialOptions } from './manager';
export { SyncManager } from './manager';
export type { SyncEvents } from './events';
export type { Hello, HelloAnswer } from './hello';
export { SyncUnit } from './host';
export type { Session, UnitOptions } from './host';
export type { Limits } from './limits';
export type { NodeRecord } from './registry';
export { checkLimits, limitKey, PeerBuckets, TokenBucket } from './limits';
export { endHostSessions } from './host-peers';
export { checkHello } from './hello';
export {
  createReconciler, decodeMessage as decodeReconcileMessage, entryDigest, entryItem, MAX_FRAME_LIMIT as RECONCILE_MAX_FRAME_LIMIT,
  MIN_FRAME_LIMIT as RECONCILE_MIN_FRAME_LIMIT, MODE as RECONCILE_MODES, RECONCILE_DEFAULTS, RECONCILE_VERSION, WIRE_LIMITS as RECONCILE_LIMITS,
} from '../reconcile';
export type {
  Bound as ReconcileBound, DecodeResult as ReconcileDecodeResult, Message as ReconcileMessage, Range as ReconcileRange,
  ReconcileItem, ReconcileOutcome, ReconcileRefusal, ReconcileStep, Reconciler, ReconcilerOptions,
} from '../reconcile';

export { createReconciler } from './reconciler';
export type { ReconcileOutcome, Reconciler, ReconcilerOptions } from './reconciler';
export type { ReconcileStep } from './initiator';
export { decodeMessage } from './decode';
export type { DecodeResult } from './decode';
export { entryDigest, entryItem } from './digest';
export { MAX_FRAME_LIMIT, MIN_FRAME_LIMIT, RECONCILE_DEFAULTS } from './params';
export { MODE, RECONCILE_VERSION, WIRE_LIMITS } from './types';
export type { Bound, DeferRange, DiffRange, FingerprintRange, ItemsRange, Message, Range, ReconcileItem, ReconcileRefusal, SkipRange, TagsRange } from './types';

export { formatEventId, parseEventId } from './event-id';
export type { EventId } from './event-id';
export type { LogIndex, SegmentInfo } from './files';
export { FLAG_GRANTED, OpLog } from './op-log';
export type { CursorCheck, LogEntry, LogEvent, OpLogOptions } from './op-log';
export { DEFAULT_RETENTION_OPS, MIN_RETENTION_OPS, retentionOf, segmentsToDrop } from './retention';
export type { Retention } from './retention';
export { advanceVector, classifyOp, raiseVector, vectorAhead } from './vector';

export type { DialOptions } from './manager';
export { SyncManager } from './manager';
export type { SyncEvents } from './events';
export type { Hello, HelloAnswer } from './hello';
export { SyncUnit } from './host';
export type { Session, UnitOptions } from './host';
export type { Limits } from './limits';
export type { NodeRecord } from './registry';

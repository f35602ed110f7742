// First: every module below runs on the platform this installs (Node's).
import './node-install';
export * from './api';
// Node's entry hosts as it dials: storage.sync.unit() needs no further import here.
export * from './host';
export { ERROR_CODES, errorCodeInfo } from './error-text';
export type { Backend } from './backend';
export { createFsBackend, createMemoryBackend } from './backend';
export type { MemoryBackend, MemoryBackendOptions, CrashDamage } from './backend';

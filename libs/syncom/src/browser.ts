/**
 * The browser entry, `syncom/browser`: the engine on the browser's platform
 * (Web Crypto, OPFS). The same API as `syncom` without what
 * only Node has: the fs backend (give open() a backend: `opfsBackend()`,
 * `await browserBackend()` or 'memory'), the CLI, and sealed records; its
 * ERROR_CODES point to docs/api.md for each code's meaning, and telemetry
 * speaks @opentelemetry/api once the app hands it in (`installTelemetry`).
 * Test tools stay with the tests, on Node: its memory backend is the disk
 * alone (no crash damage or fault injection) and it has no memory link.
 * Hosting is `syncom/host`'s: a page that only dials carries no host unit,
 * and storage.sync.unit() fails UNSUPPORTED until that module is imported.
 */
// First: every module below runs on the platform this installs (the browser's).
import './platform/web-install';
import { SyncomError } from './errors';
import type { HostUnit, MemoryLink, MemoryLinkOptions } from './link';
export * from './api';
export { ERROR_CODES, errorCodeInfo } from './error-text-web';
export type { Backend } from './backend/types';
export { createMemoryBackend } from './backend/memory-backend';
export { opfsBackend } from './backend/opfs-backend';
export type { OpfsBackendOptions } from './backend/opfs-backend';
export { browserBackend } from './backend/opfs-browser';
export type { BrowserBackend } from './backend/opfs-browser';
export type { MemoryBackendOptions, MemoryDisk } from './backend/memory-backend';
// The unit's type, for what storage.sync.unit() returns; its class comes with `syncom/host`.
export type { SyncUnit } from './sync';

/**
 * The in-process memory link (LINK-10) is a test tool, Node's: with its fault
 * dice it weighed about 1.9 KB of the browser bundle gzipped. A page reaches a
 * host through `syncom/socket.io`. This name, declared here, stands in for the
 * one of './api', so a bundler leaves link/memory-link.ts out.
 *
 * @throws SyncomError UNSUPPORTED always.
 */
export function createMemoryLink(_unit: HostUnit, _options?: MemoryLinkOptions): MemoryLink {
  throw new SyncomError('UNSUPPORTED', 'createMemoryLink is Node only: in the browser, connect with createSocketIoLink');
}

/**
 * The browser entry, `syncom/browser`: the engine on the browser's platform
 * (Web Crypto, OPFS). The same API as `syncom` without what
 * only Node has: the fs backend (give open() a backend: `opfsBackend()`,
 * `await browserBackend()` or 'memory'), the CLI, and sealed records; its
 * ERROR_CODES point to docs/api.md for each code's meaning, and telemetry
 * speaks @opentelemetry/api once the app hands it in (`installTelemetry`).
 * Its memory backend is the disk alone: the test controls (crash damage,
 * fault injection) are Node's, with the tests that use them.
 */
// First: every module below runs on the platform this installs (the browser's).
import './platform/web-install';
export * from './api';
export { ERROR_CODES, errorCodeInfo } from './error-text-web';
export type { Backend } from './backend/types';
export { createMemoryBackend } from './backend/memory-backend';
export { opfsBackend } from './backend/opfs-backend';
export type { OpfsBackendOptions } from './backend/opfs-backend';
export { browserBackend } from './backend/opfs-browser';
export type { BrowserBackend } from './backend/opfs-browser';
export type { MemoryBackendOptions, MemoryDisk } from './backend/memory-backend';

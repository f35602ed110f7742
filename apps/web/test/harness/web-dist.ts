import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The notes app's build, served by the hub at `/`. */
export const WEB_DIST = join(__dirname, '../../dist');

/** What the build bundles: the app's sources and the engine's (vite.config.mts takes them as they are). */
const SOURCES = [join(__dirname, '../../src'), join(__dirname, '../../index.html'), join(__dirname, '../../../../libs/syncom/src')];

/** The newest modification time under `path`, in ms. */
function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), s.mtimeMs);
}

/**
 * Fails with the fix when apps/web was not built (npm ci builds it; so does
 * `npm run build`), or was built before its sources last changed: the tests
 * would drive yesterday's app, and pass or fail for the wrong reason.
 */
export function requireWebDist(): void {
  const index = join(WEB_DIST, 'index.html');
  if (!existsSync(index)) {
    throw new Error(`apps/web/dist/index.html is missing: the browser tests drive the built notes app; run \`npm run build\` first`);
  }
  const built = statSync(index).mtimeMs;
  const changed = Math.max(...SOURCES.map(newest));
  if (changed > built) {
    throw new Error(`apps/web/dist is older than the sources it bundles (apps/web/src, libs/syncom/src): run \`npm run build -w apps/web\` first`);
  }
}

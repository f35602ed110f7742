import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The notes app's build, served by the hub at `/`. */
export const WEB_DIST = join(__dirname, '../../dist');

/** Fails with the fix when apps/web was not built (npm ci builds it; so does `npm run build`). */
export function requireWebDist(): void {
  if (!existsSync(join(WEB_DIST, 'index.html'))) {
    throw new Error(`apps/web/dist/index.html is missing: the browser tests drive the built notes app; run \`npm run build\` first`);
  }
}

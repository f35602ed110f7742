import type { NestExpressApplication } from '@nestjs/platform-express';
import { existsSync, realpathSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * Sent with every file of the web app. The page loads only its own files
 * and talks only to its own origin (socket.io), so no injected markup could
 * load a script or send a note elsewhere; no other site may frame it (a
 * framed page could be clicked through by its host); a token in the page's
 * url (an old `?token=` link) is never sent as a Referer; a file is read as
 * the type the hub names, never sniffed. The page builds its DOM from
 * elements and text alone, so it may parse no string as markup (Trusted
 * Types, where the browser has them): a sink added to it later throws
 * rather than show a peer's note as HTML.
 */
export const WEB_APP_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** One line for `/` while the web app is not built. */
export const WEB_APP_MISSING = 'The syncom web app is not built: run `npm run build -w apps/web` (or `npm run build`), then reload.\n';

/** Where the hub looks for the built web app: apps/web/dist, from apps/hub/src (dev, tests) and apps/hub/dist (npm start) alike. */
export function defaultWebDir(): string {
  return resolve(__dirname, '..', '..', 'web', 'dist');
}

/**
 * `path` resolved through its symlinks: those of its nearest existing folder when it does not exist yet (a
 * hub's first start), so that a data path reached through a link into the web folder is seen there.
 */
function realish(path: string): string {
  const full = resolve(path);
  try {
    return realpathSync(full);
  } catch {
    const parent = dirname(full);
    return parent === full ? full : join(realish(parent), basename(full));
  }
}

/** Whether `inner` is `outer` or a folder inside it. */
function within(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Whether serving `webDir` would serve `dataPath`: the same folder, or one inside it. Everything in the web folder
 * goes to anyone without a token, and the data path holds the hub's private keys, its peers' tokens (remote/) and
 * its records of every scope. (A web folder inside the data path, beside the store's own folders, serves none of them.)
 */
export function webDirServesData(webDir: string, dataPath: string): boolean {
  return within(realish(webDir), realish(dataPath));
}

/** The refusal of a web folder that holds the data path. */
export const WEB_DIR_HOLDS_DATA = 'holds the data path (SYNCOM_PATH), which would be served to anyone: its private keys, its peers\' tokens and its records. Keep the data outside the web folder';

/** Whether `dir` holds a built web app. */
export function webAppBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/**
 * Serves the web app's static files at `/` through the app's express
 * instance (Nest's useStaticAssets: no dependency beyond platform-express).
 * The static middleware only answers paths that name a file, so /health,
 * /metrics and the routes Nest mounts later fall through to their
 * controllers, and socket.io answers /socket.io on the http server before
 * express sees it. `/` answers 404 with a hint while index.html is missing;
 * the files are looked up per request, so a build made while the hub runs is
 * served without a restart.
 */
export function serveWebApp(app: NestExpressApplication, dir: string): void {
  app.useStaticAssets(dir, {
    index: 'index.html',
    setHeaders: (res, path) => {
      // The hashed bundles under assets/ never change; index.html names them and anything else may change in place.
      res.setHeader('Cache-Control', relative(dir, path).startsWith(`assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      for (const [name, value] of Object.entries(WEB_APP_HEADERS)) res.setHeader(name, value);
    },
  });
  app.getHttpAdapter().get('/', (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(WEB_APP_MISSING);
  });
}

/** The log line telling where the web app is (or why it is not). */
export function webAppLine(dir: string, url: string): string {
  return webAppBuilt(dir) ? `web app at ${url}/ (from ${dir})` : `web app not built (${dir} has no index.html): / answers 404 until npm run build -w apps/web`;
}

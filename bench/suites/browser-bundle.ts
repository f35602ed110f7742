import { build, type Metafile } from 'esbuild';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Profile, Suite } from '../lib/types';

const root = join(__dirname, '../..');

/** What the browser bundle measures: its bytes, gzipped and not, its text and the modules in it. */
export interface BrowserBundle {
  bytes: number;
  gzipBytes: number;
  text: string;
  inputs: string[];
}

/**
 * The browser entry as an app ships it: `syncom/browser` plus the socket.io
 * link entry as the package gives them to a bundler that honours the
 * `browser` export condition (its ES module build, dist/esm: `npm run build`
 * makes it), bundled by esbuild for the browser, minified, with
 * socket.io-client left to the app (external). Every export is kept, so this
 * is the bundle of an app that uses all of them. It dials and does not host:
 * `host: true` adds `syncom/host`, what a page that hosts a unit imports.
 * The TypeScript sources bundle to the same bytes; the CommonJS build, which
 * no bundler can shake, to about a third more.
 */
export async function buildBrowserBundle(from: 'esm' | 'src' = 'esm', o: { host?: boolean } = {}): Promise<BrowserBundle> {
  // The unit test bundles the sources: a change that grows the bundle fails there before anyone rebuilds.
  const base = join(root, from === 'esm' ? 'libs/syncom/dist/esm' : 'libs/syncom/src');
  const ext = from === 'esm' ? 'js' : 'ts';
  if (!existsSync(join(base, `browser.${ext}`))) throw new Error(`no ${base}/browser.${ext}: run npm run build first`);
  const entry = [
    `export * from ${JSON.stringify(join(base, `browser.${ext}`))};`,
    `export * as socketIo from ${JSON.stringify(join(base, `socket.io/index.${ext}`))};`,
    ...(o.host ? [`export * as host from ${JSON.stringify(join(base, `host.${ext}`))};`] : []),
  ].join('\n');
  const out = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'browser-bundle.ts' },
    bundle: true, minify: true, platform: 'browser', format: 'esm', write: false, metafile: true,
    external: ['socket.io-client'], logLevel: 'silent', legalComments: 'none',
  });
  const bytes = out.outputFiles[0].contents;
  return {
    bytes: bytes.length,
    gzipBytes: gzipSync(bytes, { level: 9 }).length,
    text: new TextDecoder().decode(bytes),
    inputs: Object.keys((out.metafile as Metafile).inputs),
  };
}

/** browser/bundle-gzip: the gzipped size of the browser bundle, in KB (1,024 bytes). */
export function browserBundleSuite(_profile: Profile): Suite {
  return {
    benchmarks: [{
      name: 'browser/bundle-gzip', unit: 'KB', baseline: null, ops: 1,
      run: async () => (await buildBrowserBundle()).gzipBytes / 1024,
    }],
  };
}

if (require.main === module) {
  void (async () => {
    const [b, h] = [await buildBrowserBundle(), await buildBrowserBundle('esm', { host: true })];
    console.log(`browser bundle: ${(b.gzipBytes / 1024).toFixed(1)} KB gzipped, ${(b.bytes / 1024).toFixed(1)} KB minified; with syncom/host ${(h.gzipBytes / 1024).toFixed(1)} KB gzipped`);
  })();
}

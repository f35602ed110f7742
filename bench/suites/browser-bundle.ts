import { build, type Metafile } from 'esbuild';
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
 * The browser entry as an app would ship it: `syncom/browser` plus the
 * socket.io link entry bundled by esbuild for the browser, minified, with
 * socket.io-client left to the app (external). Every export is kept, so this
 * is the bundle of an app that uses all of them.
 */
export async function buildBrowserBundle(): Promise<BrowserBundle> {
  const entry = [
    `export * from ${JSON.stringify(join(root, 'libs/syncom/src/browser.ts'))};`,
    `export * as socketIo from ${JSON.stringify(join(root, 'libs/syncom/src/socket.io/index.ts'))};`,
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
  void buildBrowserBundle().then((b) => console.log(`browser bundle: ${(b.gzipBytes / 1024).toFixed(1)} KB gzipped, ${(b.bytes / 1024).toFixed(1)} KB minified`));
}

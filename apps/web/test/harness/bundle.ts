import { build } from 'esbuild';
import { join } from 'node:path';

let cached: Promise<string> | undefined;

/**
 * entry.ts bundled for the browser by esbuild, from the engine's sources (no
 * dist needed), once per test file. Rejects with esbuild's messages when the
 * browser entry does not build: that is a failure of the browser build itself.
 */
export function testBundle(): Promise<string> {
  cached ??= build({
    entryPoints: [join(__dirname, 'entry.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'inline',
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0].text);
  return cached;
}

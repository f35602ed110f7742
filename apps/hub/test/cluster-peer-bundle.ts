import { build } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
/** The workspace libs from their sources, as scripts/register-src.js maps them. */
const LIBS = {
  syncom: './libs/syncom/src/index.ts',
  'syncom/testing': './libs/syncom/src/testing/index.ts',
  'syncom/socket.io': './libs/syncom/src/socket.io/index.ts',
  'syncom-nest': './libs/syncom-nest/src/index.ts',
};

/**
 * scripts/load/peer-proc.ts bundled by esbuild into one JavaScript file for
 * PeerProcs to fork without transpiling: each peer process then starts in
 * about 0.3 s of CPU instead of 0.8 s through scripts/register-src.js. Packages
 * stay external, so the file sits under the root node_modules to resolve them;
 * its name carries this process's id (jest workers run side by side).
 * Resolves with the file and the way to remove it.
 */
export async function bundlePeerProc(): Promise<{ script: string; remove: () => void }> {
  const dir = join(ROOT, 'node_modules', '.cache', 'syncom-cluster-test');
  mkdirSync(dir, { recursive: true });
  const script = join(dir, `peer-proc-${process.pid}.js`);
  await build({
    entryPoints: [join(ROOT, 'scripts/load/peer-proc.ts')], absWorkingDir: ROOT, outfile: script,
    bundle: true, platform: 'node', target: 'node20', packages: 'external', alias: LIBS, logLevel: 'silent',
  });
  return { script, remove: () => rmSync(script, { force: true }) };
}

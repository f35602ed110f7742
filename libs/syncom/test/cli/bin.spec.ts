import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { open } from '../../src';
import { cleanup, tempDir } from './helpers';

const root = join(__dirname, '..', '..', '..', '..');
const run = promisify(execFile);

/** The CLI as a process, from its TypeScript source (no build needed): stdout, stderr and the exit code. */
async function syncom(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = ['-r', join(root, 'scripts/register-src.js'), join(root, 'libs/syncom/src/cli/main.ts'), ...args];
  try {
    const { stdout, stderr } = await run(process.execPath, argv, { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

afterAll(cleanup);

describe('the syncom binary', () => {
  it('runs as a process: info on a storage exits 0, a path that is no storage exits 2 with a message', async () => {
    const path = await tempDir();
    const s = await open({ path });
    await s.insert({ title: 'x' });
    await s.close();
    const ok = await syncom('info', path);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toContain(`node      ${s.id}`);
    expect(ok.stdout).toContain('records   1 live');
    const bad = await syncom('verify', join(path, 'records'));
    expect(bad).toEqual({ code: 2, stdout: '', stderr: `syncom: ${join(path, 'records')} is not a syncom storage: it has no log/index.json and no keys/ (did you mean ${path}?)\n` });
  });

  it('is the package bin: a launcher kept in git that loads the built CLI', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'libs/syncom/package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
    expect(pkg.bin).toEqual({ syncom: 'bin/syncom.js' });
    expect(pkg.files).toContain('bin');
    const launcher = await readFile(join(root, 'libs/syncom/bin/syncom.js'), 'utf8');
    expect(launcher.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(launcher).toContain("require('../dist/cli/main.js')");
    expect((await readFile(join(root, 'libs/syncom/src/cli/main.ts'), 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});

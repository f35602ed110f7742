import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');

/**
 * The environment of an app a test starts: this process's without its SYNCOM_* variables (CI's
 * SYNCOM_REQUIRE_CHROMIUM, or a developer's SYNCOM_TOKENS, would reach the app, which reads or warns
 * about every one), HOST on loopback, then `env` (a value undefined leaves the variable out).
 */
export function appEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SYNCOM_')));
  return { ...inherited, HOST: '127.0.0.1', ...env };
}

/**
 * Run an app's entry (`apps/hub/src/main.ts`, relative to the repository)
 * from its TypeScript source with `env` over this process's (HOST on
 * loopback; a value undefined leaves the variable out) until it exits;
 * resolves with its code and everything it printed. For the tests of a
 * start that must refuse: a process that starts instead of exiting is
 * killed after 50 s, so it never outlives its test.
 */
function runMain(entry: string, env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['-r', join(root, 'scripts/register-src.js'), join(root, entry)], {
    env: appEnv(env), stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { out += c.toString(); });
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise((resolve) => child.once('exit', (code) => {
    clearTimeout(timer);
    resolve({ code, out });
  }));
}

/**
 * What a start that must refuse shows: its exit code, the lines it printed,
 * and whether its data directory (`SYNCOM_PATH`) was made. A refused start
 * exits 1 with one line and makes nothing.
 */
export async function refusedStart(entry: string, env: Record<string, string | undefined> & { SYNCOM_PATH: string }): Promise<{ code: number | null; lines: string[]; made: boolean }> {
  const { code, out } = await runMain(entry, env);
  return { code, lines: out.trim().split('\n'), made: existsSync(env.SYNCOM_PATH) };
}

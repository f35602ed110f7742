import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../../../scripts/free-port';
import { appEnv } from '../../../scripts/run-main';

const root = join(__dirname, '..', '..', '..');
const compiled = join(root, 'apps/hub/dist/main.js');

/** The pids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)]).toString();
    return out.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when no process matches
  }
}

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** Resolves once `child` printed `pattern` on stdout or stderr; rejects with its output if it exits first. */
function printed(child: ChildProcess, pattern: RegExp): Promise<void> {
  let out = '';
  return new Promise((resolve, reject) => {
    const read = (c: Buffer) => { out += c.toString(); if (pattern.test(out)) resolve(); };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', () => reject(new Error(`npm start exited before ${pattern}:\n${out}`)));
  });
}

/**
 * `npm start` runs the compiled hub (apps/hub/dist, built by `npm install`'s
 * prepare) with exec, so the process npm starts is the hub itself: a signal to
 * npm's pid, which npm forwards, reaches the hub and its shutdown hooks run.
 */
describe('npm start (the compiled hub)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-start-'));
  // A failing run must leave no process behind (a shell that did not pass the signal on, and its hub).
  const started = new Set<number>();
  afterEach(() => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    started.clear();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['SIGTERM', 'SIGINT'] as const)('%s to npm stops the hub, which says so and closes its storage (its LOCK is gone)', async (signal) => {
    expect(existsSync(compiled) ? compiled : 'apps/hub/dist/main.js is missing: run npm run build').toBe(compiled);
    const [port] = await freePorts(1);
    const path = join(dir, signal);
    const npm = spawn('npm', ['start'], { cwd: root, env: appEnv({ PORT: String(port), SYNCOM_PATH: path, SYNCOM_TOKENS: 't' }), stdio: ['ignore', 'pipe', 'pipe'] });
    started.add(npm.pid!);
    // 'close', not 'exit': npm's exit may come before the hub's last lines (the same pipe) are read.
    const exited = new Promise<void>((resolve) => npm.once('close', () => resolve()));
    let said = '';
    npm.stdout!.on('data', (c: Buffer) => { said += c.toString(); });
    await printed(npm, /listening on http/);
    const [hub] = childrenOf(npm.pid!);
    for (const pid of [hub, ...childrenOf(hub)]) started.add(pid);
    expect(execFileSync('ps', ['-o', 'args=', '-p', String(hub)]).toString()).toMatch(/^node .*apps\/hub\/dist\/main\.js/);
    expect(existsSync(join(path, 'LOCK'))).toBe(true);
    npm.kill(signal);
    await exited;
    // npm exits once its child did: the hub is gone, not orphaned, and it released its storage.
    expect(alive(hub)).toBe(false);
    expect(existsSync(join(path, 'LOCK'))).toBe(false);
    // A clean stop says so in the log, where a crash leaves nothing.
    expect(said).toContain(`stopping on ${signal}: closing the storage`);
  });
});

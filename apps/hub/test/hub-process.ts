import { type ChildProcess, spawn } from 'node:child_process';
import { appEnv } from '../../../scripts/run-main';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** A hub in a child process, started by `npm start`'s entry point with its environment. */
export interface HubProcess {
  child: ChildProcess;
  /** Everything it printed so far (ANSI colours removed). */
  output(): string;
  /** Resolves when a line matching `pattern` has been printed (at once if it already was). */
  printed(pattern: RegExp): Promise<void>;
  /** SIGKILL: no shutdown hook runs, nothing is flushed. Resolves once it exited. */
  kill(): Promise<void>;
}

/**
 * Spawns apps/hub/src/main.ts with `env` (PORT, SYNCOM_PEERS, ...; a variable
 * given as undefined is left out of the child's environment) on 127.0.0.1
 * and resolves once it logged that it listens.
 * @throws Error with its output when it exits first.
 */
export async function spawnHub(env: Record<string, string | undefined>): Promise<HubProcess> {
  const child = spawn(process.execPath, ['-r', join(root, 'scripts/register-src.js'), join(root, 'apps/hub/src/main.ts')], {
    env: appEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiting = new Set<{ pattern: RegExp; resolve: () => void }>();
  // A test worker that dies must not leave a hub behind, dialing its peers for ever.
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { process.off('exit', orphaned); resolve(); }));
  const read = (c: Buffer) => {
    out += c.toString().replace(/\x1b\[[0-9;]*m/g, '');
    for (const w of waiting) if (w.pattern.test(out)) { waiting.delete(w); w.resolve(); }
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  const hub: HubProcess = {
    child,
    output: () => out,
    printed: (pattern) => new Promise((resolve, reject) => {
      if (pattern.test(out)) return resolve();
      waiting.add({ pattern, resolve });
      void exited.then(() => reject(new Error(`the hub exited before printing ${pattern}:\n${out}`)));
    }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  await hub.printed(/listening on http/);
  return hub;
}

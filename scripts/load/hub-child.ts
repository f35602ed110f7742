import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Vector } from 'syncom';
import type { LoadProbeSample } from '../../apps/hub/src/load-probe.controller';
import { freePorts } from '../free-port';

const ROOT = join(__dirname, '..', '..');

/**
 * `npm start`'s hub (apps/hub/src/main.ts from source) in a child process
 * with GET /load-probe on, its data in a fresh temporary directory and its
 * log in a file there: a pipe the load tool must drain would tie the hub's
 * event loop to the tool's, which is the busiest of the two.
 */
export class HubChild {
  private readonly exited: Promise<void>;
  private readonly orphaned = () => this.child.kill('SIGKILL');

  private constructor(private readonly child: ChildProcess, readonly port: number, readonly dir: string, readonly token: string) {
    process.once('exit', this.orphaned);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Starts the hub and resolves once it logged that it listens. */
  static async start(token = 'load-token'): Promise<HubChild> {
    const [[port], dir] = [await freePorts(1), mkdtempSync(join(tmpdir(), 'syncom-load-'))];
    const log = openSync(join(dir, 'hub.log'), 'a');
    const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', SYNCOM_PATH: join(dir, 'data'), SYNCOM_TOKENS: token, SYNCOM_LOAD_PROBE: '1',
      // Every load peer shares one token: the hub's per-token socket cap (32 by default) would refuse most of
      // them, and its per-token rate (2000 ops/s by default) would measure the limit rather than the hub.
      SYNCOM_SOCKETS_PER_TOKEN: process.env.SYNCOM_SOCKETS_PER_TOKEN ?? '0',
      SYNCOM_OPS_PER_SECOND: process.env.SYNCOM_OPS_PER_SECOND ?? '0',
      // The tool reads the hub's vector from GET /health, which names writers only with the detail on.
      SYNCOM_HEALTH_DETAIL: '1' };
    // --expose-gc lets the probe weigh the heap after a full collection; LOAD_HUB_ARGS adds flags (--cpu-prof).
    const flags = ['--expose-gc', ...(process.env.LOAD_HUB_ARGS ?? '').split(' ').filter(Boolean)];
    // LOAD_HUB_ROOT: the hub of another checkout (a worktree of an older commit), for before/after figures.
    const root = process.env.LOAD_HUB_ROOT ?? ROOT;
    const child = spawn(process.execPath, [...flags, '-r', join(root, 'scripts/register-src.js'), join(root, 'apps/hub/src/main.ts')], {
      env, stdio: ['ignore', log, log], cwd: root,
    });
    closeSync(log);
    const hub = new HubChild(child, port, dir, token);
    // Startup only (swc transpiles the app first): the log is a file, so it is read until the line shows.
    while (!/listening on http/.test(hub.log())) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the hub exited at start:\n${hub.log()}`);
      await sleep(100);
    }
    return hub;
  }

  /** What dialers connect to. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/syncom`;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Everything the hub logged so far. */
  log(): string {
    return readFileSync(join(this.dir, 'hub.log'), 'utf8');
  }

  /**
   * RSS, heap and event-loop delay since the last reset; with `boundary` the
   * next interval starts, after a full collection (the heap read is what is
   * referenced) unless `collect` is false.
   */
  async probe(boundary: boolean, collect = boundary): Promise<LoadProbeSample> {
    const query = boundary ? `?reset=1${collect ? '&gc=1' : ''}` : '';
    const res = await fetch(`http://127.0.0.1:${this.port}/load-probe${query}`);
    return res.json() as Promise<LoadProbeSample>;
  }

  /** The hub's log vector (GET /health). */
  async vector(): Promise<Vector> {
    return ((await (await fetch(`http://127.0.0.1:${this.port}/health`)).json()) as { vector: Vector }).vector;
  }

  /**
   * Resolves with the sockets the hub still counts once it counts none, or after `ms`:
   * a disconnect reaches the hub a little after the client closed, and nothing tells the tool when.
   */
  async socketsDrained(ms: number): Promise<number> {
    const until = performance.now() + ms;
    let sockets = (await this.probe(false)).sockets;
    while (sockets > 0 && performance.now() < until) {
      await sleep(50);
      sockets = (await this.probe(false)).sockets;
    }
    return sockets;
  }

  /** SIGTERM (the shutdown hooks close the storage), SIGKILL if it is still there after 15 s; the directory goes. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      await this.exited;
      clearTimeout(timer);
    }
    process.off('exit', this.orphaned);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

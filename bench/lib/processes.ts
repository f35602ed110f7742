import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/** The repository root: children run from it, with the TypeScript sources registered. */
const ROOT = join(__dirname, '..', '..');
const REGISTER = join(ROOT, 'scripts', 'register-src.js');

/** What a child sends: `{ ready }` once loaded, then one reply per request. */
type Reply = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

const live = new Set<ChildProcess>();
let hooked = false;

/** Kill every child still running (also at the bench's exit, so a crash leaves no orphan). */
export function killChildren(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/**
 * A bench child process (bench/children/*.ts, run with scripts/register-src.js
 * so it can load syncom-nest and the Nest apps from source), driven by
 * requests over its IPC channel. The child exits when the channel closes, so
 * it cannot outlive the bench even after a SIGKILL of the parent.
 */
export class BenchChild {
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private exited: Promise<void>;
  private readonly started: Promise<void>;

  private constructor(private readonly label: string, private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.started = new Promise((resolve, reject) => {
      child.on('message', (m: Reply) => ('ready' in m ? resolve() : this.settle(m)));
      child.once('exit', (code, signal) => {
        const error = new Error(`bench child ${label} exited (${signal ?? `code ${code}`})`);
        reject(error);
        for (const p of this.pending.values()) p.reject(error);
        this.pending.clear();
      });
    });
  }

  /**
   * Forks `file` and resolves once it has loaded and said so; killed if it
   * does not within `ms`. `nodeArgs` are node flags for this child (a larger
   * heap: `--max-old-space-size=8192`), before BENCH_CHILD_ARGS.
   */
  static async spawn(label: string, file: string, ms = 180_000, nodeArgs: readonly string[] = []): Promise<BenchChild> {
    if (!hooked) {
      hooked = true;
      process.once('exit', killChildren);
    }
    // execArgv replaces the bench's own: the register script (as `npm run bench` loads it) with the lib mapping.
    // BENCH_CHILD_ARGS adds node flags to the children only (--cpu-prof is refused in NODE_OPTIONS).
    const extra = (process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean);
    const execArgv = ['-r', REGISTER, ...nodeArgs, ...extra];
    const child = fork(join(ROOT, file), [], { cwd: ROOT, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    live.add(child);
    child.once('exit', () => live.delete(child));
    const handle = new BenchChild(label, child);
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    try {
      await handle.started;
      return handle;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The process id (to check with ps that none is left). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends one command; resolves with the child's answer, rejects with its error or its exit. */
  request<T>(cmd: string, args: object = {}): Promise<T> {
    if (!this.child.connected) return Promise.reject(new Error(`bench child ${this.label} is gone`));
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, cmd, args });
    });
  }

  /** Ends the child: the channel closes (it exits by itself), SIGKILL after `ms` if it has not. */
  async stop(ms = 5_000): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (this.child.connected) this.child.disconnect();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
      await this.exited;
      clearTimeout(timer);
    }
  }

  private settle(m: Exclude<Reply, { ready: true }>): void {
    const p = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (m.ok) p?.resolve(m.value);
    else p?.reject(new Error(`bench child ${this.label}: ${m.error}`));
  }
}

import { checkPath } from './paths';
import type { PathCheck } from './paths';
import { damageSnapshot } from './memory-damage';
import type { CrashDamage } from './memory-damage';
import { createFaults } from './memory-faults';
import type { FailAtOptions, MemoryOp } from './memory-faults';
import { createFileTable } from './memory-files';
import type { MemorySnapshot } from './memory-files';
import type { Backend } from './types';

const DEFAULT_SEED = 0x5eed;

/** Options of `createMemoryBackend`. */
export interface MemoryBackendOptions {
  /** Seed of the crash damage rng (default 0x5eed); `crash(damage, seed)` can override it. */
  seed?: number;
  /** Yield with setImmediate on every n-th operation (the others wait one microtask). */
  yieldEvery?: number;
  /** Start from this state (from `snapshot()` or `crash()`). */
  from?: MemorySnapshot;
  /** Start with these files, durable (paths are checked; parents become directories). */
  files?: Record<string, string>;
}

/** The in-memory backend with its test controls. */
export interface MemoryBackend extends Backend {
  /** A copy of the current content of every file, by path, in path order. */
  files(): Map<string, string>;
  /** The full state, durable and current, as plain data. */
  snapshot(): MemorySnapshot;
  /**
   * Crash the process: this backend is dead (every later call throws ECRASH),
   * and the returned new one holds what survived `damage` (default 'none').
   */
  crash(damage?: CrashDamage, seed?: number): MemoryBackend;
  /** The k-th counted operation from now (1-based) fails with `code`; see FailAtOptions. */
  failAt(k: number, options?: FailAtOptions): void;
  /** The k-th mutating operation from now, and every operation after it, throws ECRASH, taking no effect. */
  crashAt(k: number): void;
  /** Cancel failAt and a pending crashAt; a crash that happened stays (reopen with `crash()`). */
  clearFaults(): void;
  /** Mutating operations (write, overwrite, remove, mkdir) attempted so far, failed ones included. */
  opCount(): number;
}

function initialSnapshot(options: MemoryBackendOptions): MemorySnapshot | undefined {
  if (options.files === undefined) return options.from;
  const files = { ...options.from?.files };
  for (const [path, data] of Object.entries(options.files)) files[checkPath(path)] = { current: data, durable: data };
  return { files, dirs: options.from?.dirs ?? [] };
}

function createPause(every: number | undefined): () => Promise<void> {
  let n = 0;
  return () => (every !== undefined && every > 0 && ++n % every === 0 ? new Promise((r) => setImmediate(r)) : Promise.resolve());
}

/**
 * An in-memory Backend for tests: visible files, a durability model with
 * crash damage, and fault injection. Every method is async and yields before
 * it takes effect, so concurrent callers interleave as over real I/O.
 *
 * @example
 * const disk = createMemoryBackend({ seed: 7 });
 * await disk.write('a', 'x');            // not durable
 * const after = disk.crash('lost');       // power cut
 * await after.read('a')                   // undefined
 */
export function createMemoryBackend(options: MemoryBackendOptions = {}): MemoryBackend {
  const table = createFileTable(initialSnapshot(options));
  const faults = createFaults();
  const pause = createPause(options.yieldEvery);
  async function run<T>(op: MemoryOp, path: string, apply: (p: string) => T, check?: PathCheck): Promise<T> {
    const checked = checkPath(path, check);
    await pause();
    faults.check(op, checked);
    return apply(checked);
  }
  const put = (durable: boolean | undefined, inPlace: boolean) => ({ durable: durable === true, inPlace });
  return {
    read: (path) => run('read', path, (p) => table.read(p)),
    write: (path, data, o) => run('write', path, (p) => table.put(p, data, put(o?.durable, false)), { creating: true }),
    overwrite: (path, data, o) => run('overwrite', path, (p) => table.put(p, data, put(o?.durable, true)), { creating: true }),
    remove: (path) => run('remove', path, (p) => table.remove(p)),
    list: (dir) => run('list', dir, (p) => table.list(p), { dir: true }),
    mkdir: (dir) => run('mkdir', dir, (p) => table.mkdir(p), { dir: true }),
    exists: (path) => run('exists', path, (p) => table.exists(p), { dir: true }),
    files: () => table.current(),
    snapshot: () => table.snapshot(),
    crash(damage = 'none', seed = options.seed ?? DEFAULT_SEED) {
      faults.kill();
      const from = damageSnapshot(table.snapshot(), damage, seed);
      return createMemoryBackend({ seed: options.seed, yieldEvery: options.yieldEvery, from });
    },
    failAt: (k, o) => faults.failAt(k, o),
    crashAt: (k) => faults.crashAt(k),
    clearFaults: () => faults.clearFaults(),
    opCount: () => faults.opCount(),
  };
}

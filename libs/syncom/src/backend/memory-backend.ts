import { lockedError } from './lock';
import { checkPath } from './paths';
import type { PathCheck } from './paths';
import { damageSnapshot } from './memory-damage';
import type { CrashDamage } from './memory-damage';
import { createFaults } from './memory-faults';
import type { CrashAtOptions, FailAtOptions, MemoryOp } from './memory-faults';
import { createFileTable } from './memory-files';
import type { MemorySnapshot } from './memory-files';
import type { AppendOptions, Backend } from './types';
import { platform } from '../platform';

const DEFAULT_SEED = 0x5eed;
/** The memory backend's host, for a LOCKED message: this process. */
const HERE = 'memory';
/** This process's pid, where there is one (0 in a browser). */
const PID = typeof process === 'object' && process !== null && typeof process.pid === 'number' ? process.pid : 0;

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
  /**
   * Offer `append` (default true). False models a backend without it (as
   * OPFS): the log then writes one file per batch.
   */
  append?: boolean;
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
  /**
   * The k-th counted operation from now (1-based) fails with `code`; see FailAtOptions.
   * A failed 'fsync' of a write leaves the file as it was (the temp file is
   * dropped); of an overwrite or an `inPlace` write, the new bytes stay in place, not durable;
   * of an append, the file is cut back to what it held before (as the fs backend does).
   */
  failAt(k: number, options?: FailAtOptions): void;
  /**
   * The k-th counted operation from now (default: mutating ones; `{ ops: IO_POINTS }`
   * adds fsyncs), and every operation after it, throws ECRASH, taking no effect.
   */
  crashAt(k: number, options?: CrashAtOptions): void;
  /** Cancel failAt and a pending crashAt; a crash that happened stays (reopen with `crash()`). */
  clearFaults(): void;
  /** Operations attempted so far, failed ones included: by default the mutating ones (write, overwrite, remove, mkdir). */
  opCount(ops?: readonly MemoryOp[]): number;
  /** Whether this backend is dead: a crashAt fired or crash() was called. */
  isCrashed(): boolean;
}

function initialSnapshot(options: MemoryBackendOptions): MemorySnapshot | undefined {
  if (options.files === undefined) return options.from;
  const files = { ...options.from?.files };
  for (const [path, data] of Object.entries(options.files)) files[checkPath(path)] = { current: data, durable: data };
  return { files, dirs: options.from?.dirs ?? [] };
}

function createPause(every: number | undefined): () => Promise<void> {
  let n = 0;
  return () => (every !== undefined && every > 0 && ++n % every === 0 ? new Promise((r) => platform().macrotask(() => r(undefined))) : Promise.resolve());
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
  // As node:fs: a durable write syncs its temp file before the rename, so a failed
  // fsync leaves the target untouched; an overwrite lands in place, then syncs.
  const write = (p: string, data: string, durable?: boolean) => {
    if (durable) faults.check('fsync', p);
    table.put(p, data, { durable: durable === true, inPlace: false });
  };
  const overwrite = (p: string, data: string, durable?: boolean) => {
    table.put(p, data, { durable: false, inPlace: true });
    if (!durable) return;
    faults.check('fsync', p);
    table.put(p, data, { durable: true, inPlace: false });
  };
  // As the fs backend: a failed fsync of an append cuts the file back to its length before it.
  const append = (p: string, data: string, o?: AppendOptions) => {
    if (o?.fresh) return write(p, data, o.durable);
    const before = table.state(p);
    table.append(p, data, false);
    if (!o?.durable) return;
    try {
      faults.check('fsync', p);
    } catch (e) {
      // A crash runs nothing more: the bytes stay in place, not durable.
      if (!faults.dead) table.restore(p, before);
      throw e;
    }
    table.put(p, table.read(p) as string, { durable: true, inPlace: false });
  };
  let locked = false;
  const backend: MemoryBackend = {
    // One open storage per memory backend, as per fs path; a crash() hands over a new, unlocked disk.
    async lock(path) {
      if (locked) throw lockedError(path, { pid: PID, host: HERE }, { pid: PID, host: HERE });
      locked = true;
      let released = false;
      return { release: async () => { if (!released) { released = true; locked = false; } } };
    },
    read: (path) => run('read', path, (p) => table.read(p)),
    // An in-place write lands as an overwrite does: torn by a crash until its fsync.
    write: (path, data, o) => run('write', path, (p) => (o?.inPlace ? overwrite : write)(p, data, o?.durable), { creating: true }),
    overwrite: (path, data, o) => run('overwrite', path, (p) => overwrite(p, data, o?.durable), { creating: true }),
    append: (path, data, o) => run('write', path, (p) => append(p, data, o), { creating: true }),
    remove: (path) => run('remove', path, (p) => table.remove(p)),
    list: (dir) => run('list', dir, (p) => table.list(p), { dir: true }),
    mkdir: (dir) => run('mkdir', dir, (p) => table.mkdir(p), { dir: true }),
    exists: (path) => run('exists', path, (p) => table.exists(p), { dir: true }),
    files: () => table.current(),
    snapshot: () => table.snapshot(),
    crash(damage = 'none', seed = options.seed ?? DEFAULT_SEED) {
      faults.kill();
      const from = damageSnapshot(table.snapshot(), damage, seed);
      return createMemoryBackend({ seed: options.seed, yieldEvery: options.yieldEvery, append: options.append, from });
    },
    failAt: (k, o) => faults.failAt(k, o),
    crashAt: (k, o) => faults.crashAt(k, o),
    clearFaults: () => faults.clearFaults(),
    opCount: (ops) => faults.opCount(ops),
    isCrashed: () => faults.dead,
  };
  if (options.append === false) delete backend.append;
  return backend;
}

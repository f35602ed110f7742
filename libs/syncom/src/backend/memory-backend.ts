import { ioError } from '../errors';
import { lockedError } from './lock';
import { checkPath } from './paths';
import type { PathCheck } from './paths';
import type { MemoryOp } from './memory-faults';
import { createFileTable } from './memory-files';
import type { MemorySnapshot } from './memory-files';
import type { AppendOptions, Backend } from './types';
import { platform } from '../platform';

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

/** The in-memory backend: files held by this process and gone with it, which a test can look at. */
export interface MemoryDisk extends Backend {
  /** A copy of the current content of every file, by path, in path order. */
  files(): Map<string, string>;
  /** The full state, durable and current, as plain data. */
  snapshot(): MemorySnapshot;
}

/**
 * What a memory disk asks before each operation takes effect: the fault plans
 * of the test controls (memory-controls.ts). A page's memory backend has none.
 */
export interface MemoryHooks {
  /** Count `op` and throw the error a plan calls for. */
  check(op: MemoryOp, path: string): void;
  /** Whether the process is dead: a crash leaves the bytes of a failed append in place. */
  readonly dead: boolean;
}

const NO_HOOKS: MemoryHooks = { check: () => undefined, dead: false };

/** The operations whose failures are IO_ERROR, as on node:fs. */
const READS: ReadonlySet<MemoryOp> = new Set(['read', 'list', 'exists', 'mkdir']);

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
 * A memory disk whose operations pass through `hooks`: the files, the
 * durability model a crash damages and the lock, without the test controls
 * (memory-controls.ts adds them, so a browser bundle leaves them out).
 * Every method is async and yields before it takes effect, so concurrent
 * callers interleave as over real I/O.
 */
export function createMemoryDisk(options: MemoryBackendOptions, hooks: MemoryHooks = NO_HOOKS): MemoryDisk {
  const table = createFileTable(initialSnapshot(options));
  const pause = createPause(options.yieldEvery);
  async function run<T>(op: MemoryOp, path: string, apply: (p: string) => T, check?: PathCheck): Promise<T> {
    const checked = checkPath(path, check);
    await pause();
    try {
      hooks.check(op, checked);
      return apply(checked);
    } catch (e) {
      // As node:fs's backend (and OPFS's): a read, list, exists or mkdir failing is IO_ERROR naming the path, so a
      // store's damage fails open() with a code on every backend. A write keeps its fs-like error, for its caller
      // to wrap; and a crash (the process is dead) its ECRASH, which nothing past it reads.
      throw READS.has(op) && !hooks.dead ? ioError(checked, e) : e;
    }
  }
  // As node:fs: a durable write syncs its temp file before the rename, so a failed
  // fsync leaves the target untouched; an overwrite lands in place, then syncs.
  const write = (p: string, data: string, durable?: boolean) => {
    if (durable) hooks.check('fsync', p);
    table.put(p, data, { durable: durable === true, inPlace: false });
  };
  const overwrite = (p: string, data: string, durable?: boolean) => {
    table.put(p, data, { durable: false, inPlace: true });
    if (!durable) return;
    hooks.check('fsync', p);
    table.put(p, data, { durable: true, inPlace: false });
  };
  // As the fs backend: a failed fsync of an append cuts the file back to its length before it.
  const append = (p: string, data: string, o?: AppendOptions) => {
    if (o?.fresh) return write(p, data, o.durable);
    const before = table.state(p);
    table.append(p, data, false);
    if (!o?.durable) return;
    try {
      hooks.check('fsync', p);
    } catch (e) {
      // A crash runs nothing more: the bytes stay in place, not durable.
      if (!hooks.dead) table.restore(p, before);
      throw e;
    }
    table.put(p, table.read(p) as string, { durable: true, inPlace: false });
  };
  let locked = false;
  const disk: MemoryDisk = {
    // One open storage per memory backend, as per fs path; a crash() hands over a new, unlocked disk.
    async lock(path) {
      if (locked) throw lockedError(path, { pid: PID, host: HERE }, { pid: PID, host: HERE });
      locked = true;
      let released = false;
      return { release: async () => { if (!released) { released = true; locked = false; } } };
    },
    // A text whose parse would not fit in the heap left is refused, as node:fs refuses it (platform/read-bound.ts).
    read: (path) => run('read', path, (p) => {
      const text = table.read(p);
      if (text !== undefined) platform().checkRead?.(p, text);
      return text;
    }),
    // An in-place write lands as an overwrite does: torn by a crash until its fsync.
    write: (path, data, o) => run('write', path, (p) => (o?.inPlace ? overwrite : write)(p, data, o?.durable), { creating: true }),
    overwrite: (path, data, o) => run('overwrite', path, (p) => overwrite(p, data, o?.durable), { creating: true }),
    append: (path, data, o) => run('write', path, (p) => append(p, data, o), { creating: true }),
    // A durable removal, as node:fs: the unlink, then the fsync of its directory, an I/O point of its own.
    remove: (path, o) => run('remove', path, (p) => {
      table.remove(p);
      if (!o?.durable) return;
      hooks.check('fsync', p);
      table.forget(p);
    }),
    list: (dir) => run('list', dir, (p) => table.list(p), { dir: true }),
    mkdir: (dir) => run('mkdir', dir, (p) => table.mkdir(p), { dir: true }),
    exists: (path) => run('exists', path, (p) => table.exists(p), { dir: true }),
    files: () => table.current(),
    snapshot: () => table.snapshot(),
  };
  if (options.append === false) delete disk.append;
  return disk;
}

/**
 * The in-memory Backend of `open({ backend: 'memory' })` and of a page
 * (`syncom/browser`): files held by this process, gone with it. Node's
 * entry and `syncom/testing` export the one with test controls (crash
 * damage, fault injection: memory-controls.ts) under this name.
 *
 * @example
 * const storage = await open({ path: 'scratch', backend: createMemoryBackend() });
 */
export function createMemoryBackend(options: MemoryBackendOptions = {}): MemoryDisk {
  return createMemoryDisk(options);
}

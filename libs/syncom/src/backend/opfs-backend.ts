import { ioError, SyncomError } from '../errors';
import type { BackendLock } from './lock';
import { findFile, hasEntry, listNames, mapError, opfsError, splitPath, walkDir } from './opfs-files';
import type { OpfsDirectoryHandle, WebLockManager } from './opfs-types';
import { checkPath } from './paths';
import type { Backend } from './types';
import { navigatorLocks, takeWebLock } from './web-lock';
import { platform } from '../platform';

/** Options of `opfsBackend`. */
export interface OpfsBackendOptions {
  /** The directory to store under; default the origin's OPFS root, navigator.storage.getDirectory(). */
  root?: OpfsDirectoryHandle;
  /** A sub-directory of `root` for this store ('/'-separated, created on first use); default: `root` itself. */
  dir?: string;
  /** lock(): wait for the tab that holds the store to close it, instead of failing with LOCKED. */
  wait?: boolean;
  /** Give up a `wait`: open() then fails with LOCKED. */
  signal?: AbortSignal;
  /**
   * The LockManager; default navigator.locks. `false` opens with no lock at
   * all: only for a caller that guarantees one owner itself (one worker).
   */
  locks?: WebLockManager | false;
  /** The Web Lock's name; default `syncom:opfs:<dir>`. Set it when two `root`s share a `dir`. */
  lockName?: string;
}

type Root = () => Promise<OpfsDirectoryHandle>;

/** A page without OPFS, or without its writes: UNSUPPORTED (the fs-like ENOTSUP as cause), as for any feature the platform lacks. */
const unsupported = (syscall: string, path: string, why: string): SyncomError =>
  new SyncomError('UNSUPPORTED', `${why}; browserBackend() uses memory`, { path, cause: opfsError('ENOTSUP', syscall, path) });

/** The origin's OPFS root, or UNSUPPORTED saying what to use instead. */
async function originRoot(): Promise<OpfsDirectoryHandle> {
  const storage = (globalThis as unknown as { navigator?: { storage?: { getDirectory?: () => Promise<OpfsDirectoryHandle> } } }).navigator?.storage;
  if (typeof storage?.getDirectory !== 'function') throw unsupported('getDirectory', '', 'no OPFS here (navigator.storage.getDirectory)');
  return storage.getDirectory().catch((e: unknown) => { throw mapError(e, 'getDirectory', ''); });
}

/** Resolve the store's directory once; a failure is not kept, so a later call tries again. */
function storeRoot(options: OpfsBackendOptions, base: string): Root {
  let pending: Promise<OpfsDirectoryHandle> | undefined;
  return () => {
    pending ??= (async () => walkDir(options.root ?? (await originRoot()), base ? base.split('/') : [], true, base))()
      .catch((e: unknown) => { pending = undefined; throw e; });
    return pending;
  };
}

/**
 * A file's committed content. An empty file is missing (here, to list and to
 * exists): OPFS creates a file, empty, when its handle is made, before a
 * stream commits its content, so a page that dies in between leaves an empty
 * file of a write that never returned (a key pair half made, a record file
 * never written). The engine writes no empty file.
 */
async function readText(root: Root, path: string): Promise<string | undefined> {
  const file = await findFile(await root(), path);
  if (!file) return undefined;
  try {
    const blob = await file.getFile();
    // As node:fs: a file whose text, or its parse, would not fit in the heap left is refused (platform/read-bound.ts; passed by mapError).
    const check = platform().checkRead;
    if (blob.size === 0) return undefined;
    check?.(path, blob.size);
    const text = await blob.text();
    check?.(path, text);
    return text;
  } catch (e) {
    const mapped = mapError(e, 'read', path) as { code?: string };
    if (mapped.code === 'ENOENT') return undefined; // removed since it was found
    throw mapped;
  }
}

/**
 * Write a whole file through a writable stream: its bytes go to a swap file
 * that close() commits in one step (Chromium and Firefox), so the file holds
 * the old content or the new, never half; a page that dies before close()
 * leaves the old. A failed write aborts the stream, which drops the swap.
 */
async function writeWhole(root: Root, path: string, data: string, syscall: string): Promise<void> {
  const { dirs, name } = splitPath(path);
  const dir = await walkDir(await root(), dirs, false, path);
  const handle = await dir.getFileHandle(name, { create: true }).catch((e: unknown) => { throw mapError(e, 'open', path, 'EISDIR'); });
  if (typeof handle.createWritable !== 'function') throw unsupported(syscall, path, 'no createWritable: OPFS writes need a worker here');
  const stream = await handle.createWritable({ keepExistingData: false }).catch((e: unknown) => { throw mapError(e, 'open', path); });
  try {
    await stream.write(data);
  } catch (e) {
    await stream.abort().catch(() => undefined);
    throw mapError(e, syscall, path);
  }
  await stream.close().catch((e: unknown) => { throw mapError(e, syscall, path); });
}

async function removeFile(root: Root, path: string): Promise<void> {
  const { dirs, name } = splitPath(path);
  try {
    const dir = await walkDir(await root(), dirs, false, path);
    await dir.removeEntry(name);
  } catch (e) {
    const mapped = mapError(e, 'unlink', path) as { code?: string };
    if (mapped.code !== 'ENOENT' && mapped.code !== 'ENOTDIR') throw mapped;
  }
}

async function listDir(root: Root, dir: string): Promise<string[]> {
  try {
    return await listNames(await walkDir(await root(), dir ? dir.split('/') : [], false, dir));
  } catch (e) {
    const mapped = mapError(e, 'scandir', dir) as { code?: string };
    if (mapped.code === 'ENOENT' || mapped.code === 'ENOTDIR') return [];
    throw mapped;
  }
}

async function existsAt(root: Root, path: string): Promise<boolean> {
  if (path === '') return (await root(), true);
  const { dirs, name } = splitPath(path);
  try {
    return await hasEntry(await walkDir(await root(), dirs, false, path), name);
  } catch (e) {
    const mapped = mapError(e, 'stat', path) as { code?: string };
    if (mapped.code === 'ENOENT' || mapped.code === 'ENOTDIR') return false;
    throw mapped;
  }
}

/**
 * As on node:fs (fs-backend.ts readError): a read, list, exists or mkdir that
 * fails other than "absent" rejects with SyncomError IO_ERROR naming the file
 * under the origin's root, the fs-like error (and the DOMException under it)
 * as `cause`, so open() of a damaged store fails with a code on both. Writes
 * keep their fs-like errors: the committer wraps those, as it does node:fs's.
 */
const readFailed = (path: string) => (e: unknown): never => {
  throw ioError(path, e);
};

function lockStore(options: OpfsBackendOptions, base: string, path: string): Promise<BackendLock> {
  if (options.locks === false) return Promise.resolve({ release: async () => undefined });
  const locks = options.locks ?? navigatorLocks();
  if (!locks) {
    // Without Web Locks nothing keeps a second tab from writing the same files: refuse rather than risk two writers.
    return Promise.reject(new SyncomError('LOCKED', `the storage at ${path} cannot be locked: no Web Locks (https or localhost only); pass opfsBackend({ locks: false }) if only this page opens it`, {
      status: 423, path,
    }));
  }
  const name = options.lockName ?? `syncom:opfs:${base}`;
  return takeWebLock(locks, { name, path, wait: options.wait, signal: options.signal });
}

/**
 * The Origin Private File System backend: the same files as the fs backend
 * (log segments and batches, records, keys, the remote/ registry), under
 * `dir` of the origin's OPFS. OPFS has no rename: `write` and `overwrite` go
 * through a writable stream committed by close() (see writeWhole), and
 * `durable` adds nothing, as OPFS has no fsync: the browser decides when the
 * bytes reach the disk. An empty file counts as missing (see readText).
 * `lock` takes the Web Lock of the store (one tab owns
 * it; see takeWebLock). No method throws synchronously: path errors, a
 * missing OPFS and DOMExceptions (as fs-like `code`s: ENOENT, EISDIR,
 * ENOTDIR, ENOSPC, ..., and EIO for any other, the path named) reject; a
 * read, list, exists or mkdir wraps its fs-like error in IO_ERROR (readFailed).
 *
 * @throws SyncomError INVALID_ARGUMENT (from each method) for a path that could leave `dir`.
 * @throws SyncomError IO_ERROR (read, list, exists, mkdir) naming the path, the fs-like error as cause.
 * @throws SyncomError UNSUPPORTED where the page has no OPFS, or (a write) no writable streams.
 * @example
 * const storage = await open({ path: 'notes', backend: opfsBackend({ dir: 'notes' }) });
 */
export function opfsBackend(options: OpfsBackendOptions = {}): Backend {
  const base = options.dir === undefined ? '' : checkPath(options.dir, { dir: true });
  const root = storeRoot(options, base);
  const run = async <T>(f: () => Promise<T>): Promise<T> => f();
  const reading = async <T>(path: string, f: () => Promise<T>): Promise<T> =>
    run(f).catch(readFailed(base && path ? `${base}/${path}` : base || path));
  const serial = serialByPath();
  return {
    read: (path) => reading(path, () => readText(root, checkPath(path))),
    write: (path, data) => run(() => serial(checkPath(path, { creating: true }), (p) => writeWhole(root, p, data, 'write'))),
    overwrite: (path, data) => run(() => serial(checkPath(path, { creating: true }), (p) => writeWhole(root, p, data, 'overwrite'))),
    remove: (path) => run(() => serial(checkPath(path), (p) => removeFile(root, p))),
    list: (dir) => reading(dir, () => listDir(root, checkPath(dir, { dir: true }))),
    mkdir: (dir) => reading(dir, async () => void (await walkDir(await root(), splitDir(checkPath(dir, { dir: true })), true, dir))),
    exists: (path) => reading(path, () => existsAt(root, checkPath(path, { dir: true }))),
    lock: (path) => lockStore(options, base, path),
    // A commit is one step for a closed tab, not at a power cut (no fsync): see Backend.tornWrites.
    tornWrites: true,
  };
}

const splitDir = (dir: string): string[] => (dir ? dir.split('/') : []);

/**
 * Changes of one file run one after another, in call order: a browser may
 * refuse to remove a file while a stream on it is open
 * (NoModificationAllowedError), and two commits of one file land in the
 * order they were asked for.
 */
function serialByPath(): <T>(path: string, f: (path: string) => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (path, f) => {
    const prev = tails.get(path) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(() => f(path));
    const tail = next.catch(() => undefined);
    tails.set(path, tail);
    void tail.then(() => { if (tails.get(path) === tail) tails.delete(path); });
    return next;
  };
}

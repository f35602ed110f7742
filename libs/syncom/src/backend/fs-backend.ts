import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { lockDirectory } from './fs-lock';
import { checkPath, isTempName } from './paths';
import type { PathCheck } from './paths';
import type { Backend } from './types';

/** Errors of platforms that refuse to open or fsync a directory (Windows, some filesystems). */
const DIR_SYNC_REFUSED = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EBADF']);

/** The largest in-place write made on the main thread (characters). */
const SYNC_WRITE_MAX = 64 * 1024;
/** Writes made on the main thread in one event-loop turn, at most (then one goes to the pool and the loop turns). */
const SYNC_WRITES_PER_TURN = 4;
/** A main-thread write slower than this (ms) sends the next ones to the pool for SLOW_PAUSE_MS. */
const SLOW_WRITE_MS = 0.5;
const SLOW_PAUSE_MS = 1000;
/** Small writes made on the main thread since the event loop last turned. */
let syncWrites = 0;
/** Until when the main thread writes nothing (a slow disk: the wait is the pool's, not every caller's). */
let slowUntil = 0;

/**
 * Whether a small write that need not be durable is made on the main thread:
 * open, write and close of a page-cache file take tens of microseconds there,
 * three round trips to libuv's pool take far more (an awaited log append).
 * A few per event-loop turn: a loop of awaited writes still lets the loop turn
 * (timers, sockets, the record files' writes) every SYNC_WRITES_PER_TURN writes.
 * Not while the disk is slow (a contended journal can hold a create for
 * milliseconds): one slow write sends the next second's to the pool.
 */
function mainThreadTurn(data: string): boolean {
  if (syncWrites >= SYNC_WRITES_PER_TURN || data.length > SYNC_WRITE_MAX || performance.now() < slowUntil) return false;
  if (syncWrites++ === 0) setImmediate(() => (syncWrites = 0));
  return true;
}

/** Write a small file on the main thread, timed (see mainThreadTurn). */
function writeOnMainThread(file: string, data: string): void {
  const start = performance.now();
  writeFileSync(file, data, 'utf8');
  const end = performance.now();
  if (end - start > SLOW_WRITE_MS) slowUntil = end + SLOW_PAUSE_MS;
}

const errorCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/**
 * The node:fs backend, rooted at `root` (created by `mkdir('')` or any mkdir).
 * `write` is atomic (temp file then rename), or with `inPlace` a plain
 * create-and-write whose crash can leave the file torn; `overwrite` rewrites in
 * place with no rename (the purge scrub, GUAR-20); `{ durable: true }` fsyncs
 * the data, and for `write` the parent directory too (GUAR-17). `list` returns
 * the names of plain files only, sorted by code unit, without leftover temp files.
 * `lock` takes `<root>/LOCK` (see lockDirectory): one open storage per root.
 * OS errors (ENOSPC, EIO, ...) propagate unchanged, for the caller to wrap.
 *
 * @throws TypeError when `root` is not a non-empty string.
 * @throws SyncomError INVALID_ARGUMENT (from each method) for a path that could leave the root.
 * @example const backend = createFsBackend('/var/lib/app/syncom');
 */
export function createFsBackend(root: string): Backend {
  if (typeof root !== 'string' || root === '') throw new TypeError('createFsBackend: root must be a non-empty path');
  const base = resolve(root);
  const at = (path: string, check?: PathCheck): string => join(base, checkPath(path, check));
  return {
    read: async (path) => readOrUndefined(at(path)),
    write: async (path, data, options) => {
      const write = options?.inPlace === true ? writeInPlace : writeAtomic;
      await write(at(path, { creating: true }), data, options?.durable === true);
    },
    overwrite: async (path, data, options) =>
      overwriteInPlace(at(path, { creating: true }), data, options?.durable === true),
    remove: async (path) => removeIfPresent(at(path)),
    list: async (dir) => listFiles(at(dir, { dir: true })),
    mkdir: async (dir) => void (await mkdir(at(dir, { dir: true }), { recursive: true })),
    exists: async (path) => existsAt(at(path, { dir: true })),
    lock: async () => lockDirectory(base),
  };
}

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/** Temp file, optional fsync, rename over the target, optional fsync of the directory. */
async function writeAtomic(file: string, data: string, durable: boolean): Promise<void> {
  const temp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data, 'utf8');
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
  if (durable) await syncDir(dirname(file));
}

/**
 * Create or truncate the file and write it, no temp file and no rename: three
 * round trips (open, write, close) instead of four and a random name. Durable:
 * the directory is opened beside the file, and the file and the directory are
 * fsynced together once the file exists (the fsync of the directory is what
 * makes a new file's name survive a power cut), so the cost is four steps, not eight.
 */
async function writeInPlace(file: string, data: string, durable: boolean): Promise<void> {
  if (!durable) return mainThreadTurn(data) ? writeOnMainThread(file, data) : writeFile(file, data, 'utf8');
  const [handle, dir] = await openBoth(file);
  try {
    await handle.writeFile(data, 'utf8');
    await Promise.all([handle.sync(), dir ? syncHandle(dir) : undefined]);
  } finally {
    await Promise.all([handle.close(), dir?.close()]);
  }
}

/** Open the file (created or truncated) and its directory at once; neither is left open on a failure. */
async function openBoth(file: string): Promise<[FileHandle, FileHandle | undefined]> {
  const [f, d] = await Promise.allSettled([open(file, 'w'), openDir(dirname(file))]);
  if (f.status === 'fulfilled' && d.status === 'fulfilled') return [f.value, d.value];
  if (f.status === 'fulfilled') await f.value.close().catch(() => undefined);
  if (d.status === 'fulfilled') await d.value?.close().catch(() => undefined);
  throw f.status === 'rejected' ? f.reason : (d as PromiseRejectedResult).reason;
}

/** Write over the file's own bytes, then cut what is left of the old content. */
async function overwriteInPlace(file: string, data: string, durable: boolean): Promise<void> {
  const handle = await open(file, 'r+').catch((e: unknown) => {
    if (errorCode(e) === 'ENOENT') return open(file, 'w');
    throw e;
  });
  try {
    const bytes = Buffer.from(data, 'utf8');
    await handle.writeFile(bytes);
    await handle.truncate(bytes.byteLength);
    if (durable) await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync a directory so a rename in it survives a power cut. */
async function syncDir(dir: string): Promise<void> {
  const handle = await openDir(dir);
  try {
    if (handle) await syncHandle(handle);
  } finally {
    await handle?.close();
  }
}

/** A directory's handle for its fsync; undefined where the platform refuses to open one. */
async function openDir(dir: string): Promise<FileHandle | undefined> {
  try {
    return await open(dir, 'r');
  } catch (e) {
    if (DIR_SYNC_REFUSED.has(errorCode(e) ?? '')) return undefined;
    throw e;
  }
}

/** fsync a directory's handle; a platform that refuses it is not an error. */
async function syncHandle(handle: FileHandle): Promise<void> {
  try {
    await handle.sync();
  } catch (e) {
    if (!DIR_SYNC_REFUSED.has(errorCode(e) ?? '')) throw e;
  }
}

async function removeIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (e) {
    if (errorCode(e) !== 'ENOENT') throw e;
  }
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((d) => d.isFile() && !isTempName(d.name)).map((d) => d.name).sort();
  } catch (e) {
    if (errorCode(e) === 'ENOENT' || errorCode(e) === 'ENOTDIR') return [];
    throw e;
  }
}

async function existsAt(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (errorCode(e) === 'ENOENT' || errorCode(e) === 'ENOTDIR') return false;
    throw e;
  }
}

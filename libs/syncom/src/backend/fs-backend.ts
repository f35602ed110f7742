import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { chmod, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ioError, SyncomError } from '../errors';
import { createAppender } from './fs-append';
import { errorCode, makeFolders, readRegularFile } from './fs-errors';
import { DIR_MODE, FILE_MODE } from './fs-modes';
import { Recycler } from './fs-recycle';
import { LOCK_FILE, lockDirectory } from './fs-lock';
import { mainThreadTurn, timedOnMainThread } from './fs-turns';
import { checkPath, isTempName } from './paths';
import type { PathCheck } from './paths';
import type { Backend } from './types';
import { checkReadCost, checkReadSize } from '../platform/read-bound';

/**
 * The temp name removeLeftovers keeps: the file another process taking the lock links into place. The
 * appender's spare goes with the rest: the lock is taken before this process appends anything, so one
 * standing then is a crash's (kept, it stayed through every session that wrote nothing).
 */
const KEPT = new RegExp(`^${LOCK_FILE}\\.tmp-`);

/** Errors of platforms that refuse to open or fsync a directory (Windows, some filesystems). */
const DIR_SYNC_REFUSED = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EBADF']);

/**
 * The node:fs backend, rooted at `root` (created by `mkdir('')` or any mkdir).
 * `write` is atomic (temp file, or a recycled file, then rename), or with `inPlace` a plain
 * create-and-write whose crash can leave the file torn; `overwrite` rewrites in
 * place with no rename (the purge scrub, GUAR-20); `{ durable: true }` fsyncs
 * the data, and for `write` the parent directory too (GUAR-17). `list` returns
 * the names of plain files only, sorted by code unit, without leftover temp files.
 * `append` adds to the end of a file it keeps open (see createAppender); `close`
 * lets that file go and leaves the backend usable. `remove` with `recycle`
 * keeps the file, emptied, for the next write of a file in its directory
 * (see Recycler); `close` removes what is kept.
 * `lock` takes `<root>/LOCK` (see lockDirectory): one open storage per root.
 * A read, list, exists or mkdir that fails other than "absent" (ENOENT)
 * rejects with SyncomError IO_ERROR naming the path, the OS error as its
 * `cause`, so open() of a damaged store fails with a code; a write's OS
 * errors (ENOSPC, EIO, ...) propagate unchanged, for the caller to wrap.
 *
 * @throws TypeError when `root` is not a non-empty string.
 * @throws SyncomError INVALID_ARGUMENT (from each method) for a path that could leave the root.
 * @example const backend = createFsBackend('/var/lib/app/syncom');
 */
export function createFsBackend(root: string): Backend {
  if (typeof root !== 'string' || root === '') throw new TypeError('createFsBackend: root must be a non-empty path');
  const base = resolve(root);
  const at = (path: string, check?: PathCheck): string => join(base, checkPath(path, check));
  const appender = createAppender((file) => syncDir(dirname(file)));
  const recycler = new Recycler();
  /** The path of a call that changes a file, which the appender lets go first. */
  const changing = (path: string, check: PathCheck = { creating: true }): string => {
    const file = at(path, check);
    appender.release(file);
    return file;
  };
  return {
    read: async (path) => {
      // A file whose text, or its parse, would not fit in the heap left is refused, not read (platform/read-bound.ts).
      const text = await readOrUndefined(at(path), (bytes) => checkReadSize(path, bytes));
      if (text !== undefined) checkReadCost(path, text);
      return text;
    },
    write: async (path, data, options) => {
      const durable = options?.durable === true;
      if (options?.inPlace !== true) return writeAtomically(changing(path), data, durable, recycler);
      await writeInPlace(changing(path), data, durable, recycler);
    },
    overwrite: async (path, data, options) => overwriteInPlace(changing(path), data, options?.durable === true),
    append: async (path, data, options) =>
      appender.append(at(path, { creating: true }), data, { durable: options?.durable === true, fresh: options?.fresh === true }),
    remove: async (path, options) => {
      const file = changing(path, {});
      if (options?.recycle !== true) {
        await removeIfPresent(file);
        if (options?.durable === true) await syncDir(dirname(file));
        return;
      }
      // A seal lets go of dozens at once: a few a turn (then the loop turns), on the main thread.
      await recycler.turn();
      if (!recycler.retire(file)) await removeIfPresent(file);
    },
    list: async (dir) => listFiles(at(dir, { dir: true }), LINKED_DIRS.has(dir)),
    mkdir: async (dir) => makeDir(at(dir, { dir: true }), base),
    exists: async (path) => existsAt(at(path, { dir: true })),
    lock: async () => {
      const held = await lockDirectory(base);
      // Once the lock is held no other process writes here: what a crash left under temp names goes.
      await removeLeftovers(base);
      return held;
    },
    close: async () => {
      await appender.close();
      await recycler.close();
    },
  };
}

async function readOrUndefined(file: string, checkSize: (bytes: number) => void): Promise<string | undefined> {
  try {
    return await readRegularFile(file, checkSize);
  } catch (e) {
    // A read bound's refusal (a SyncomError) passes as it is; an OS error is IO_ERROR naming the path.
    throw ioError(file, e);
  }
}

/** Temp file, optional fsync, rename over the target, optional fsync of the directory. */
async function writeAtomic(file: string, data: string, durable: boolean): Promise<void> {
  const temp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    const handle = await open(temp, 'wx', FILE_MODE);
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
 * With a recycled file of the directory at hand, that file is written, cut
 * and renamed into place instead (no file created: see Recycler).
 */
async function writeInPlace(file: string, data: string, durable: boolean, recycler: Recycler): Promise<void> {
  const kind = recycler.has(dirname(file)) ? 'existing' : 'create';
  const onMain = !durable && (await mainThreadTurn(data, kind));
  // Taken after the turn's wait: no other write can take the same file.
  const spare = recycler.take(dirname(file));
  if (spare === undefined) {
    // A file another write took meanwhile is created on the pool, where creates go while they are slow.
    if (onMain && kind === 'create') return timedOnMainThread(() => writeFileSync(file, data, { encoding: 'utf8', mode: FILE_MODE }), 'create');
    return durable ? writeDurably(file, data) : writeFile(file, data, { encoding: 'utf8', mode: FILE_MODE });
  }
  return fillSpare(spare, file, data, durable, onMain);
}

/**
 * An atomic write (`file` appears whole or not at all): into a recycled file
 * of the directory renamed over it when one is at hand (the record files a
 * merge let go of), else through a temp file (writeAtomic).
 */
async function writeAtomically(file: string, data: string, durable: boolean, recycler: Recycler): Promise<void> {
  if (!recycler.has(dirname(file))) return writeAtomic(file, data, durable);
  const onMain = !durable && (await mainThreadTurn(data, 'existing'));
  const spare = recycler.take(dirname(file));
  if (spare === undefined) return writeAtomic(file, data, durable);
  return fillSpare(spare, file, data, durable, onMain);
}

/** Write `data` into the recycled file `spare`, cut it to that, and rename it to `file` (durable: both fsynced). */
async function fillSpare(spare: string, file: string, data: string, durable: boolean, onMain: boolean): Promise<void> {
  try {
    if (onMain) return timedOnMainThread(() => Recycler.fillSync(spare, file, data), 'existing');
    if (durable) return await writeDurably(file, data, spare);
    await overwriteInPlace(spare, data, false);
    await rename(spare, file);
  } catch (e) {
    // A recycled file that failed part-way holds what no one reads: it goes (best effort), the error stays.
    await rm(spare, { force: true }).catch(() => undefined);
    throw e;
  }
}

/**
 * Durable: the file (created or truncated, or the recycled file `spare`) and
 * its directory opened at once, the data written (a recycled file cut to it
 * and renamed into place), then the file and the directory fsynced together
 * (the fsync of the directory is what makes a new name survive a power cut).
 */
async function writeDurably(file: string, data: string, spare?: string): Promise<void> {
  const [handle, dir] = await openBoth(spare ?? file, spare === undefined ? 'w' : 'r+');
  try {
    const bytes = Buffer.from(data, 'utf8');
    await handle.writeFile(bytes);
    if (spare !== undefined) {
      await handle.truncate(bytes.length);
      await rename(spare, file);
    }
    await Promise.all([handle.sync(), dir ? syncHandle(dir) : undefined]);
  } finally {
    await Promise.all([handle.close(), dir?.close()]);
  }
}

/** Open the file (`flags`: created or truncated by default) and its directory at once; neither is left open on a failure. */
async function openBoth(file: string, flags = 'w'): Promise<[FileHandle, FileHandle | undefined]> {
  const [f, d] = await Promise.allSettled([open(file, flags, FILE_MODE), openDir(dirname(file))]);
  if (f.status === 'fulfilled' && d.status === 'fulfilled') return [f.value, d.value];
  if (f.status === 'fulfilled') await f.value.close().catch(() => undefined);
  if (d.status === 'fulfilled') await d.value?.close().catch(() => undefined);
  throw f.status === 'rejected' ? f.reason : (d as PromiseRejectedResult).reason;
}

/** Write over the file's own bytes, then cut what is left of the old content. */
async function overwriteInPlace(file: string, data: string, durable: boolean): Promise<void> {
  const handle = await open(file, 'r+').catch((e: unknown) => {
    if (errorCode(e) === 'ENOENT') return open(file, 'w', FILE_MODE);
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

/**
 * Remove the files a crash left under temp names in the storage's folders
 * (`root`, and two levels down: log/open): an atomic write's temp file whose
 * rename never came, a recycled file. Listings skip them, so nothing else
 * ever would, and one may hold data of a record purged since. Best effort:
 * a file that cannot be removed is left for the next open. The appender's
 * spare is left for it to take (see createAppender).
 */
async function removeLeftovers(dir: string, depth = 2): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of entries) {
    const path = join(dir, d.name);
    if (d.isDirectory() && depth > 0) await removeLeftovers(path, depth - 1);
    else if (d.isFile() && isTempName(d.name) && !KEPT.test(d.name)) await unlink(path).catch(() => undefined);
  }
}

/**
 * mkdir -p, the folders made the owner's alone (DIR_MODE); a file in the way
 * (a damaged store) is IO_ERROR naming the path. A folder of the store made
 * before, more open than that, is closed to others (best effort: a folder
 * another user owns stays as it is); the root, when it was there before
 * open(), keeps the mode its owner gave it.
 */
async function makeDir(dir: string, root: string): Promise<void> {
  await makeFolders(dir, DIR_MODE);
  for (let d = dir; d !== root && d.startsWith(root); d = dirname(d)) await closeToOthers(d);
}

async function closeToOthers(dir: string): Promise<void> {
  try {
    if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, DIR_MODE);
  } catch {
    // Not ours to change (another owner, a read-only mount): the store works as before.
  }
}

/**
 * Folders whose files may be symbolic links, listed as files (a read follows
 * them): the store's keys, which a deployment may mount as links (a
 * Kubernetes secret is one). Nothing writes there after the keys are made.
 */
const LINKED_DIRS: ReadonlySet<string> = new Set(['keys']);

/**
 * The plain files of `dir` (and its links, with `linksListed`). A symbolic link under a name the store would use
 * (a log file, a record file, a registry file placed as a link: a restore
 * that kept links, or a hand's) is IO_ERROR naming it: skipped, its ops were
 * dropped without a word and its sequence numbers signed again, and the next
 * write at its name (or a seal handing the file back, zeroed) went through
 * it to the file it points at, outside the store.
 */
async function listFiles(dir: string, linksListed = false): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (errorCode(e) === 'ENOENT' || errorCode(e) === 'ENOTDIR') return [];
    throw ioError(dir, e);
  }
  if (linksListed) return entries.filter((d) => (d.isFile() || d.isSymbolicLink()) && !isTempName(d.name)).map((d) => d.name).sort();
  const link = entries.filter((d) => d.isSymbolicLink() && !isTempName(d.name)).sort((a, b) => (a.name < b.name ? -1 : 1))[0];
  if (link) {
    const path = join(dir, link.name);
    throw ioError(path, Object.assign(new Error(`${link.name} is a symbolic link, where the store keeps its own files: it is neither followed `
      + '(a write would land outside the store) nor skipped (its data would be left out); put the file itself there'), { code: 'ELOOP' }));
  }
  return entries.filter((d) => d.isFile() && !isTempName(d.name)).map((d) => d.name).sort();
}

async function existsAt(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (errorCode(e) === 'ENOENT' || errorCode(e) === 'ENOTDIR') return false;
    throw ioError(path, e);
  }
}

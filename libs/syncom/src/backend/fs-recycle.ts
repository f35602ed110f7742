import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, ftruncateSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errorCode } from './fs-errors';
import { FILE_MODE } from './fs-modes';

/** The end of a recycled file's name: a temp name, so listings skip it (paths.ts). */
export const RECYCLED_SUFFIX = '.tmp-recycled';
/**
 * Recycled files kept per directory. A seal lets go of its batches' files
 * in one go (64 by default), and seals wait for the record files, so
 * between two seals the writes may outrun them: files created then come back
 * at the next seal, and keeping them covers the next such stretch.
 */
export const MAX_RECYCLED = 256;
/** Files retired in one turn of the event loop, at most (about 30 us each here). */
const RETIRES_PER_TURN = 8;
/** A larger file is removed, not recycled: zeroing it would cost more than creating a small one. */
export const MAX_RECYCLED_BYTES = 64 * 1024;

/** Ignore a missing file: it went since it was found. */
function unlessMissing(e: unknown): void {
  if (errorCode(e) !== 'ENOENT') throw e;
}

/**
 * Files the fs backend let go of, kept for the next new files of their
 * directory. On some file systems creating a file is what a small write
 * costs most: ext4 mounted without a journal skips every inode freed in the
 * last minutes when it looks for a free one, so an append that creates a
 * batch file, in a log that unlinks them by the dozen at each seal, spent
 * 0.3 to 0.9 ms there (docs/benchmarks.md). A recycled file is renamed out
 * of the way at once (a temp name: no listing shows it, and a load never
 * reads it) and then its bytes are zeroed in place, so it holds nothing of
 * what it held (a purged record's data must not linger). The next file
 * written in the directory (a new batch file, or a record file: an atomic
 * write renames it over the file it replaces) is written into it (open,
 * write from its start, cut to the new length) and renamed into place: no
 * inode is allocated (nor freed, for a new file),
 * and its blocks stay allocated. The file appears whole at its name or not
 * at all. (Files are not made ahead: a create on libuv's pool holds the
 * directory, and the renames of the writes on the main thread waited for it.)
 * What a crash leaves under the temp name is removed the first time the
 * directory is used again, and close() removes the rest.
 */
export class Recycler {
  private readonly byDir = new Map<string, string[]>();
  /** Directories already swept for what an earlier process left. */
  private readonly swept = new Set<string>();
  private readonly prefix = randomBytes(4).toString('hex');
  private count = 0;
  /** Files retired since the event loop last turned. */
  private retires = 0;

  /**
   * Let go of `file`: kept for a later file of its directory (true) when
   * there is room and it is small; else false, for the caller to remove it
   * through the pool (unlinking a large file frees its blocks, no work for
   * the main thread; a merge of record files lets go of files of megabytes).
   * On the main thread: a few small system calls, where each step's round
   * trip through libuv's pool would wait for a turn of an event loop busy
   * with the writes that want the file.
   */
  retire(file: string): boolean {
    const dir = dirname(file);
    const pool = this.pool(dir);
    if (pool.length >= MAX_RECYCLED) return false;
    const spare = this.name(dir);
    let size: number;
    try {
      // lstat: a link (or anything but a plain file) is not ours to zero, chmod or write into; the caller removes it.
      const st = lstatSync(file);
      if (!st.isFile()) return false;
      size = st.size;
      if (size > MAX_RECYCLED_BYTES) return false;
      // A file a store made before its files were the owner's alone (fs-modes) keeps that mode when it is reused.
      if ((st.mode & 0o077) !== 0) chmodSync(file, FILE_MODE);
      renameSync(file, spare);
    } catch (e) {
      // Gone since it was named: nothing to keep or remove.
      unlessMissing(e);
      return true;
    }
    try {
      zero(spare, size);
    } catch (e) {
      // Not kept, and not left holding what it held: removed (best effort), the error stays.
      tryRemove(spare);
      throw e;
    }
    pool.push(spare);
    return true;
  }

  /** Whether a recycled file of `dir` is at hand now. */
  has(dir: string): boolean {
    return (this.byDir.get(dir)?.length ?? 0) > 0;
  }

  /** Resolves at once while this turn has retired fewer than RETIRES_PER_TURN files, else once the loop turned. */
  async turn(): Promise<void> {
    if (this.retires >= RETIRES_PER_TURN) await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.retires++ === 0) setImmediate(() => (this.retires = 0));
  }

  /** A recycled file of `dir` taken for a new file (no one else gets it), if there is one. */
  take(dir: string): string | undefined {
    return this.pool(dir).pop();
  }

  private name(dir: string): string {
    return join(dir, `${this.prefix}${(this.count++).toString(36)}${RECYCLED_SUFFIX}`);
  }

  /** Write `data` into the recycled file `spare` and rename it to `file`, on the main thread. */
  static fillSync(spare: string, file: string, data: string): void {
    const bytes = Buffer.from(data, 'utf8');
    const fd = openSync(spare, 'r+');
    try {
      writeAllSync(fd, bytes);
      ftruncateSync(fd, bytes.length);
    } finally {
      closeSync(fd);
    }
    renameSync(spare, file);
  }

  /** Remove every recycled file kept (the backend closes). */
  async close(): Promise<void> {
    const spares = [...this.byDir.values()].flat();
    this.byDir.clear();
    this.swept.clear();
    for (const s of spares) await unlink(s).catch(unlessMissing);
  }

  /** The directory's recycled files; at its first use, what an earlier process left there is removed. */
  private pool(dir: string): string[] {
    let pool = this.byDir.get(dir);
    if (pool) return pool;
    this.byDir.set(dir, (pool = []));
    if (!this.swept.has(dir)) {
      this.swept.add(dir);
      sweep(dir);
    }
    return pool;
  }
}

/** Zeros written over the file's `size` bytes, its length and blocks kept. */
function zero(file: string, size: number): void {
  const fd = openSync(file, 'r+');
  try {
    writeAllSync(fd, Buffer.alloc(size));
  } finally {
    closeSync(fd);
  }
}

/** Write all of `bytes` at the file's start (a write may take less than it is given). */
function writeAllSync(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, at);
}

function tryRemove(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Best effort: what is left under the temp name is swept by the next process.
  }
}

function removeSync(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    unlessMissing(e);
  }
}

/** Remove recycled files an earlier process left in `dir` (a crash, or a close that did not finish). */
function sweep(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if (errorCode(e) === 'ENOENT' || errorCode(e) === 'ENOTDIR') return;
    throw e;
  }
  for (const name of names) {
    if (name.endsWith(RECYCLED_SUFFIX)) removeSync(join(dir, name));
  }
}

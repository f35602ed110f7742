import { close, closeSync, fdatasync, fstat, ftruncate, open, openSync, rename, renameSync, unlink, write, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { FILE_MODE } from './fs-modes';
import { mainThreadTurn, timedOnMainThread } from './fs-turns';

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const writeAsync = promisify(write);
const datasyncAsync = promisify(fdatasync);
const truncateAsync = promisify(ftruncate);
const renameAsync = promisify(rename);
const unlinkAsync = promisify(unlink);

/**
 * The empty file made ahead in the directory of the file last started, which
 * the next start renames into place (a temp name: list hides it, and a crash's
 * leftover is truncated and used by the next).
 */
export const SPARE_NAME = 'next.tmp-spare';

/** A spare being made: its directory, its path, and whether it was made. */
interface Spare {
  dir: string;
  path: string;
  made: Promise<boolean>;
}

/** The file kept open for appends: its descriptor and its length as appended. */
interface OpenFile {
  file: string;
  fd: number;
  size: number;
}

/** Options of one append, resolved. */
export interface AppendHow {
  durable: boolean;
  fresh: boolean;
}

/** The node:fs appends of one backend: one file kept open, the newest the log appends to. */
export interface Appender {
  append(file: string, data: string, how: AppendHow): Promise<void>;
  /** Let the open file go if it is `file` (any, without one): another call is about to touch it. */
  release(file?: string): void;
  /** Let the open file go and remove the spare: nothing is left behind. */
  close(): Promise<void>;
}

/** Write every byte of `bytes` at the end of the open file, on the main thread or through the pool. */
async function writeAll(fd: number, bytes: Buffer, onMainThread: boolean): Promise<void> {
  let done = 0;
  while (done < bytes.byteLength) {
    done += onMainThread
      ? timedOnMainThread(() => writeSync(fd, bytes, done))
      : (await writeAsync(fd, bytes, done, bytes.byteLength - done, null)).bytesWritten;
  }
}

/**
 * Appends for the fs backend. The file is opened once and kept open, so an
 * append is one write on the main thread when it is small and need not be
 * durable (see mainThreadTurn), else a write through the pool; durable, it is
 * followed by fdatasync, and by an fsync of the directory when this append
 * opened the file (a new file's name survives a power cut only so). A failed
 * append is cut back to the file's length before it; if that fails too the
 * file is let go, and the caller's next append decides what to do with the
 * torn tail.
 *
 * A file is started by renaming into place an empty spare made ahead through
 * the pool, and the next spare is made at once: creating a file can take half
 * a millisecond or more (an ext4 volume without a journal scans past every
 * inode freed in the last minutes, and the log frees one per sealed file),
 * which the append that starts a file would otherwise wait on.
 */
export function createAppender(syncDir: (file: string) => Promise<void>): Appender {
  let current: OpenFile | undefined;
  let spare: Spare | undefined;
  const release = (file?: string): void => {
    if (!current || (file !== undefined && current.file !== file)) return;
    const { fd } = current;
    current = undefined;
    try { closeSync(fd); } catch { /* already gone: nothing is held */ }
  };
  const makeSpare = (dir: string): void => {
    const path = join(dir, SPARE_NAME);
    const made = openAsync(path, 'w', FILE_MODE).then((fd) => (close(fd, () => undefined), true), () => false);
    spare = { dir, path, made };
  };
  const dropSpare = async (s: Spare): Promise<void> => {
    if (await s.made) await unlinkAsync(s.path).catch(() => undefined);
  };
  /** Open `file` afresh (created or cut), from the spare when one was made in its directory; then make the next spare. */
  const start = async (file: string, onMainThread: boolean): Promise<number> => {
    const dir = dirname(file);
    const s = spare;
    spare = undefined;
    let fd: number | undefined;
    if (s?.dir === dir && (await s.made)) {
      try {
        if (onMainThread) fd = timedOnMainThread(() => (renameSync(s.path, file), openSync(file, 'w', FILE_MODE)));
        else {
          await renameAsync(s.path, file);
          fd = await openAsync(file, 'w', FILE_MODE);
        }
      } catch {
        // The spare is gone, or the rename was refused (a directory at `file`): the file is created as
        // without one, and a spare left standing is made again in place, not leaked.
      }
    } else if (s) await dropSpare(s);
    fd ??= await openAsync(file, 'w', FILE_MODE);
    makeSpare(dir);
    return fd;
  };
  const openFile = async (file: string, fresh: boolean, onMainThread: boolean): Promise<OpenFile> => {
    release();
    const fd = fresh ? await start(file, onMainThread) : await openAsync(file, 'a', FILE_MODE);
    try {
      return (current = { file, fd, size: fresh ? 0 : (await fstatAsync(fd)).size });
    } catch (e) {
      close(fd, () => undefined);
      throw e;
    }
  };
  return {
    release,
    async close() {
      release();
      const s = spare;
      spare = undefined;
      if (s) await dropSpare(s);
    },
    async append(file, data, how) {
      const opened = !current || current.file !== file || how.fresh;
      const onMainThread = !how.durable && (await mainThreadTurn(data));
      const f = opened ? await openFile(file, how.fresh, onMainThread) : (current as OpenFile);
      const bytes = Buffer.from(data, 'utf8');
      try {
        await writeAll(f.fd, bytes, onMainThread);
        if (how.durable) await Promise.all([datasyncAsync(f.fd), opened ? syncDir(file) : undefined]);
        f.size += bytes.byteLength;
      } catch (e) {
        await truncateAsync(f.fd, f.size).catch(() => release(file));
        throw e;
      }
    },
  };
}

import { close, closeSync, fdatasync, fstat, ftruncate, open, write, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { mainThreadTurn, timedOnMainThread } from './fs-turns';

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const writeAsync = promisify(write);
const datasyncAsync = promisify(fdatasync);
const truncateAsync = promisify(ftruncate);

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
 * Appends for the fs backend. The file is opened once (through the pool: a
 * create can take a millisecond) and kept open, so an append is one write on
 * the main thread when it is small and need not be durable (see
 * mainThreadTurn), else a write through the pool; durable, it is followed by
 * fdatasync, and by an fsync of the directory when this append opened the
 * file (a new file's name survives a power cut only so). A failed append is
 * cut back to the file's length before it; if that fails too the file is let
 * go, and the caller's next append decides what to do with the torn tail.
 */
export function createAppender(syncDir: (file: string) => Promise<void>): Appender {
  let current: OpenFile | undefined;
  const release = (file?: string): void => {
    if (!current || (file !== undefined && current.file !== file)) return;
    const { fd } = current;
    current = undefined;
    try { closeSync(fd); } catch { /* already gone: nothing is held */ }
  };
  const openFile = async (file: string, fresh: boolean): Promise<OpenFile> => {
    release();
    const fd = await openAsync(file, fresh ? 'w' : 'a');
    try {
      return (current = { file, fd, size: fresh ? 0 : (await fstatAsync(fd)).size });
    } catch (e) {
      close(fd, () => undefined);
      throw e;
    }
  };
  return {
    release,
    async append(file, data, how) {
      const opened = !current || current.file !== file || how.fresh;
      const f = opened ? await openFile(file, how.fresh) : (current as OpenFile);
      const bytes = Buffer.from(data, 'utf8');
      try {
        await writeAll(f.fd, bytes, !how.durable && mainThreadTurn(data));
        if (how.durable) await Promise.all([datasyncAsync(f.fd), opened ? syncDir(file) : undefined]);
        f.size += bytes.byteLength;
      } catch (e) {
        await truncateAsync(f.fd, f.size).catch(() => release(file));
        throw e;
      }
    },
  };
}

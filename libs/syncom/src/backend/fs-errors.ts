import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ioError } from '../errors';

/** The code of a node:fs error (ENOENT, EEXIST, ...); undefined for anything else. */
export const errorCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/**
 * A file's text, or undefined when it is absent; anything but a regular file
 * (a named pipe, a device, a directory) is refused, code ENOTREG, unread.
 * Opened non-blocking: readFile of a named pipe placed where a file belongs
 * (log/index.json, LOCK) waited for a writer for good, and of a link to
 * /dev/zero read until memory ran out. `checkSize` sees the file's size
 * before it is read (it throws to refuse it).
 */
export async function readRegularFile(file: string, checkSize?: (bytes: number) => void): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const st = await handle.stat();
    // A directory reads as node's own refusal says it (EISDIR); anything else that is no file, ENOTREG.
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${file}'`), { code: 'EISDIR', syscall: 'read' });
    if (!st.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'ENOTREG' });
    checkSize?.(st.size);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * mkdir -p of `dir` with `mode`; a failure is IO_ERROR naming `dir`, the OS error its cause. Node 20's
 * recursive mkdir says ENOENT on a read-only mount ("no such file or directory"), however many folders
 * are missing: a plain mkdir of the first missing one, under the deepest folder that exists, then gives
 * the cause the OS means (EROFS), unless it is ENOENT too.
 */
export async function makeFolders(dir: string, mode: number): Promise<void> {
  await mkdir(dir, { recursive: true, mode }).catch(async (e: unknown) => {
    if (errorCode(e) !== 'ENOENT') throw ioError(dir, e);
    await mkdir(await firstMissing(dir), { mode }).catch((plain: unknown) => {
      if (errorCode(plain) !== 'EEXIST') throw ioError(dir, errorCode(plain) === 'ENOENT' ? e : plain);
    });
    // Made after all (another process made the folders between): the rest of the path once more.
    await mkdir(dir, { recursive: true, mode }).catch((again: unknown) => {
      throw ioError(dir, again);
    });
  });
}

/** The first folder of `dir`'s path that does not exist, under the deepest one that does (one a stat cannot read ends the walk). */
async function firstMissing(dir: string): Promise<string> {
  let p = dir;
  for (;;) {
    const up = dirname(p);
    if (up === p) return p;
    const missing = await stat(up).then(() => false, (e: unknown) => errorCode(e) === 'ENOENT');
    if (!missing) return p;
    p = up;
  }
}

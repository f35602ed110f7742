import { isTempName } from './paths';
import type { OpfsDirectoryHandle, OpfsFileHandle } from './opfs-types';

/**
 * A file-system error as node:fs shapes it (`code`, `syscall`, `path`), made
 * from a DOMException of OPFS, so the engine and its tests see one vocabulary
 * on both backends. The DOMException stays as `cause`.
 */
export function opfsError(code: string, syscall: string, path: string, cause?: unknown): Error {
  const { name, message } = (cause ?? {}) as { name?: string; message?: string };
  const why = `${name && name !== 'Error' ? ` (${name})` : ''}${message ? `: ${message}` : ''}`;
  const error = new Error(`${code}: ${syscall} '${path}'${why}`, { cause }) as Error & Record<string, unknown>;
  error.code = code;
  error.syscall = syscall;
  error.path = path;
  return error;
}

const nameOf = (e: unknown): string | undefined => (e as { name?: string } | null)?.name;

/** Whether an error carries a code already: one mapped here (a string `code`), or a SyncomError. A DOMException's `code` is a number. */
const hasCode = (e: unknown): boolean => typeof (e as { code?: unknown } | null)?.code === 'string';

/**
 * An error of OPFS as an fs-like error. A DOMException without an fs code of
 * its own (NotReadableError, InvalidStateError of a torn-down page, AbortError,
 * ...) is EIO, as node:fs reports a disk that fails: a caller matches one
 * vocabulary and reads which file it was. An error mapped already passes unchanged.
 */
export function mapError(e: unknown, syscall: string, path: string, mismatch = 'ENOTDIR'): unknown {
  switch (nameOf(e)) {
    case 'NotFoundError': return opfsError('ENOENT', syscall, path, e);
    case 'TypeMismatchError': return opfsError(mismatch, syscall, path, e);
    case 'QuotaExceededError': return opfsError('ENOSPC', syscall, path, e);
    case 'InvalidModificationError': return opfsError('ENOTEMPTY', syscall, path, e);
    case 'NoModificationAllowedError': return opfsError('EBUSY', syscall, path, e);
    case 'NotAllowedError':
    case 'SecurityError': return opfsError('EACCES', syscall, path, e);
    default: return hasCode(e) ? e : opfsError('EIO', syscall, path, e);
  }
}

/** Chromium's swap file of an open (or abandoned) writable stream: never a file of the store. */
export const isSwapName = (name: string): boolean => name.endsWith('.crswap');

/** Split a checked path into its directory segments and its last name. */
export function splitPath(path: string): { dirs: string[]; name: string } {
  const parts = path.split('/');
  return { dirs: parts.slice(0, -1), name: parts[parts.length - 1] };
}

/** Walk to a directory; `create` makes the missing ones (mkdir -p). Throws fs-like errors. */
export async function walkDir(root: OpfsDirectoryHandle, segments: string[], create: boolean, path: string): Promise<OpfsDirectoryHandle> {
  let dir = root;
  for (const segment of segments) {
    try {
      dir = await dir.getDirectoryHandle(segment, { create });
    } catch (e) {
      // A file where a directory is wanted: mkdir over the file itself is EEXIST, through it ENOTDIR (node:fs).
      const last = create && segment === segments[segments.length - 1];
      throw mapError(e, create ? 'mkdir' : 'open', path, last ? 'EEXIST' : 'ENOTDIR');
    }
  }
  return dir;
}

/** The file handle at a checked path, or undefined when it (or a parent) is missing. */
export async function findFile(root: OpfsDirectoryHandle, path: string): Promise<OpfsFileHandle | undefined> {
  const { dirs, name } = splitPath(path);
  try {
    const dir = await walkDir(root, dirs, false, path);
    return await dir.getFileHandle(name);
  } catch (e) {
    const mapped = mapError(e, 'open', path, 'EISDIR') as { code?: string };
    if (mapped.code === 'ENOENT' || mapped.code === 'ENOTDIR') return undefined;
    throw mapped;
  }
}

/** Whether a file has content: an empty one is a create whose content was never committed (see readText). */
async function hasContent(file: OpfsFileHandle): Promise<boolean> {
  try {
    return (await file.getFile()).size > 0;
  } catch (e) {
    if (nameOf(e) === 'NotFoundError') return false;
    throw e;
  }
}

/** Names of the files of a directory that hold content, sorted by code unit, without temp and swap files. */
export async function listNames(dir: OpfsDirectoryHandle): Promise<string[]> {
  const files: OpfsFileHandle[] = [];
  for await (const entry of dir.values()) {
    if (entry.kind === 'file' && !isTempName(entry.name) && !isSwapName(entry.name)) files.push(entry as OpfsFileHandle);
  }
  const kept = await Promise.all(files.map(async (f) => ((await hasContent(f)) ? f.name : undefined)));
  return kept.filter((n): n is string => n !== undefined).sort();
}

/** Whether a directory holds a directory or a file with content of this name. */
export async function hasEntry(dir: OpfsDirectoryHandle, name: string): Promise<boolean> {
  for (const get of [async () => hasContent(await dir.getFileHandle(name)), async () => !!(await dir.getDirectoryHandle(name))]) {
    try {
      return await get();
    } catch (e) {
      const n = nameOf(e);
      if (n !== 'NotFoundError' && n !== 'TypeMismatchError') throw e;
    }
  }
  return false;
}

import { SyncomError } from '../errors';

/** What a path names: a file (the default) or a directory, where '' is the root. */
export interface PathCheck {
  /** A directory path: '' (the root) is allowed. */
  dir?: boolean;
  /** The path is about to be written: the temp-file marker is refused in its name. */
  creating?: boolean;
}

/**
 * True for the name of a temp file an atomic write leaves behind when it dies
 * before its rename (`<name>.tmp-<random>`). `list` hides such names.
 */
export function isTempName(name: string): boolean {
  return name.includes('.tmp-');
}

/**
 * Validate a backend path and return it normalized ('/' separators, no empty
 * or '.' segments). Paths may be derived from record ids and urls, so this is a
 * security boundary: it keeps every path under the backend's root. The check
 * is lexical; a symlink placed inside the root is still followed.
 *
 * Refused: a non-string, a NUL byte, a backslash (a separator on Windows), an
 * absolute path ('/x', 'C:x'), a '..' segment, an empty file path, and when
 * `creating`, a name holding the temp marker '.tmp-' (list would hide it).
 *
 * @throws SyncomError INVALID_ARGUMENT for a refused path.
 * @example checkPath('log//open/./b-1') // 'log/open/b-1'
 */
export function checkPath(path: string, check: PathCheck = {}): string {
  const refuse = (why: string): SyncomError =>
    new SyncomError('INVALID_ARGUMENT', `Invalid backend path ${JSON.stringify(path)}: ${why}`, { field: 'path' });
  if (typeof path !== 'string') throw refuse('not a string');
  if (path.includes('\0')) throw refuse('contains a NUL byte');
  if (path.includes('\\')) throw refuse("contains a backslash; use '/' separators");
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw refuse('absolute; paths are relative to the root');
  const parts = path.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..')) throw refuse("contains a '..' segment");
  if (!check.dir && parts.length === 0) throw refuse('names no file');
  if (check.creating && isTempName(parts[parts.length - 1] ?? '')) {
    throw refuse("'.tmp-' is reserved for temp files");
  }
  return parts.join('/');
}

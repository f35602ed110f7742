import type { Backend } from '../backend/types';
import { withoutNodeNames } from '../sync/dial/registry';

/** A backend that reads through to another and never changes it. */
export interface ReadOnlyBackend extends Backend {
  /** The paths open() or close() tried to change, in order (for tests and debugging). */
  readonly refused: readonly string[];
  /** The paths a read or list of failed (a directory where a file should be, EIO, EACCES), each with why. */
  readonly failed: ReadonlyMap<string, string>;
}

/** Why a read failed, in a line: the OS error's code and text, not a stack. */
function reason(e: unknown): string {
  const cause = (e as { cause?: unknown })?.cause ?? e;
  const code = (cause as { code?: unknown })?.code;
  const message = (cause as Error)?.message ?? String(cause);
  return typeof code === 'string' && !message.startsWith(code) ? `${code}: ${message}` : message;
}

/**
 * Wrap a backend so that nothing reaches its files: reads, lists and exists
 * pass through; write, overwrite, remove and mkdir resolve without doing
 * anything. This is how the CLI runs the engine's own open() on a storage it
 * only inspects: open() and close() housekeep (drop leftover files, make a
 * missing directory, seal the open batches, write the records of the replayed
 * tail), and all of that stays in this process's memory. A read or list that
 * fails reads as absent and is kept in `failed`: the commands report it as
 * damage at that path, rather than ending on the first one with a stack trace.
 */
export function readOnlyBackend(inner: Backend): ReadOnlyBackend {
  const refused: string[] = [];
  const failed = new Map<string, string>();
  const refuse = async (path: string): Promise<void> => void refused.push(path);
  async function noting<T>(path: string, absent: T, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      // A registry file's name holds its node's credentials: info, export, log and verify never print them.
      failed.set(withoutNodeNames(path), withoutNodeNames(reason(e)));
      return absent;
    }
  }
  return {
    refused,
    failed,
    readOnly: true,
    read: (path) => noting(path, undefined, () => inner.read(path)),
    list: (dir) => noting(dir, [], () => inner.list(dir)),
    // As read and list: a symbolic link loop at log/ (ELOOP) ended verify with one line and no report.
    exists: (path) => noting(path, false, () => inner.exists(path)),
    write: (path) => refuse(path),
    overwrite: (path) => refuse(path),
    remove: (path) => refuse(path),
    mkdir: (dir) => refuse(dir),
  };
}

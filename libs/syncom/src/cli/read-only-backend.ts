import type { Backend } from '../backend/types';

/** A backend that reads through to another and never changes it. */
export interface ReadOnlyBackend extends Backend {
  /** The paths open() or close() tried to change, in order (for tests and debugging). */
  readonly refused: readonly string[];
}

/**
 * Wrap a backend so that nothing reaches its files: reads, lists and exists
 * pass through; write, overwrite, remove and mkdir resolve without doing
 * anything. This is how the CLI runs the engine's own open() on a storage it
 * only inspects: open() and close() housekeep (drop leftover files, make a
 * missing directory, seal the open batches, write the records of the replayed
 * tail), and all of that stays in this process's memory.
 */
export function readOnlyBackend(inner: Backend): ReadOnlyBackend {
  const refused: string[] = [];
  const refuse = async (path: string): Promise<void> => void refused.push(path);
  return {
    refused,
    read: (path) => inner.read(path),
    list: (dir) => inner.list(dir),
    exists: (path) => inner.exists(path),
    write: (path) => refuse(path),
    overwrite: (path) => refuse(path),
    remove: (path) => refuse(path),
    mkdir: (dir) => refuse(dir),
  };
}

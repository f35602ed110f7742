import { ioError, SyncomError } from './errors';
import { createMemoryBackend } from './backend/memory-backend';
import type { Backend } from './backend/types';
import type { BackendLock } from './backend/lock';
import { platform } from './platform';
import { checkOpenOptions } from './open-options';
import { loadStorage } from './storage/load';
import type { OpenOptions } from './storage/options';
import { Replica } from './storage/replica';
import { Storage } from './storage/storage';
import { type DialOptions, SyncManager } from './sync/manager';

function backendOf(options: OpenOptions): Backend {
  if (typeof options.backend === 'object' && options.backend !== null) return options.backend;
  if (options.backend === 'memory') return createMemoryBackend();
  const fileBackend = platform().fileBackend;
  if (!fileBackend) throw new SyncomError('INVALID_ARGUMENT', "open() in the browser needs a backend: opfsBackend() or 'memory'");
  return fileBackend(options.path);
}

/**
 * Open (or create) a storage at `options.path` (DESIGN: Storage API). Makes
 * the keys at the first open, reads the log and the record files, and replays
 * the unsealed tail of the log onto the records.
 *
 * The path is this storage's alone until close(): a second open() of it, in
 * this process or another, fails with LOCKED; a lock left by a process that
 * is gone is taken over.
 *
 * Damage it can read past (a log, record or registry file that cannot be
 * read: OP_UNREADABLE) is emitted on the storage's 'error' event once open()
 * has resolved, so a listener attached right after it sees it.
 *
 * @throws SyncomError INVALID_ARGUMENT for bad options.
 * @throws SyncomError LOCKED (status 423) while another open storage holds the path.
 * @throws SyncomError STORE_DAMAGED for damage it cannot go on past safely (a
 * key pair that lost its private half, or keys that do not match); the
 * message names the file and what to do.
 * @throws SyncomError IO_ERROR (node:fs, OPFS, memory) for a file that cannot be read, such
 * as a directory in its place, or written before anything is open (format.json, the
 * keys, the log's index, a folder: a read-only store, a full disk); the OS error its cause.
 * @example
 * const storage = await open({ path: 'data' });
 * const id = await storage.insert({ title: 'Draft' });
 */
export async function open(options: OpenOptions): Promise<Storage> {
  checkOpenOptions(options);
  const backend = backendOf(options);
  // One owner per storage path: two open storages on one path would both take writes and lose some.
  const lock = await backend.lock?.(options.path);
  try {
    return await openLocked(options, backend, lock);
  } catch (e) {
    await lock?.release().catch(() => undefined);
    throw osError(e) ? ioError((e as { path?: string }).path, e) : e;
  }
}

/**
 * Whether `e` is an OS error (node:fs's, or a backend's fs-like one: a code and a syscall) that reached open()
 * raw: a write open() makes before anything is open (the log's index, a repair of a damaged log). As IO_ERROR it
 * is matched on as the reads' failures are; the path it names, where it names one, is the one given.
 */
function osError(e: unknown): boolean {
  const x = e as { code?: unknown; syscall?: unknown } | null;
  return !(e instanceof SyncomError) && typeof x?.code === 'string' && typeof x.syscall === 'string';
}

/**
 * The composition root: storage parts, then the replica port over them, then
 * sync over the port, then the Storage facade over both. Each is whole
 * before the next is built; storage/ never reaches into sync/.
 */
async function openLocked(options: OpenOptions, backend: Backend, lock: BackendLock | undefined): Promise<Storage> {
  const { parts, startup } = await loadStorage(options, backend, lock);
  const replica = new Replica(parts);
  const sync = new SyncManager(replica, (options.sync ?? {}) as DialOptions);
  const storage = new Storage(parts, sync, replica, startup);
  // A registry file that cannot be read is damage found at open, as the log's and the records' are: reported with them.
  await sync.init((e) => startup.push(e));
  if (options.sync?.connect && options.sync.autoStart !== false) await sync.start();
  if (startup.length) platform().macrotask(() => startup.forEach((e) => parts.events.emit('error', e)));
  return storage;
}

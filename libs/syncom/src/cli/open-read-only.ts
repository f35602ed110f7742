import { open } from '../open';
import type { Storage } from '../storage/storage';
import { requireIntact, type StorageDir } from './storage-dir';

/** A storage opened for inspection, with what the engine could not read. */
export interface Inspected {
  storage: Storage;
  /** OP_UNREADABLE and the like, as open() reported them: the view is incomplete. */
  problems: string[];
  /** Close the engine; its writes land in the read-only backend, not on disk. */
  close(): Promise<void>;
}

/**
 * Open the storage with the engine's own open() on a read-only backend, so
 * info, export and log see exactly what an application would (records joined
 * from the record files, the unsealed log tail replayed, sealed entries
 * decrypted with the storage's key) while nothing on disk changes. No sync
 * option is passed: nothing dials.
 */
export async function openReadOnly(dir: StorageDir): Promise<Inspected> {
  requireIntact(dir);
  const storage = await open({ path: dir.root, backend: dir.backend });
  const problems: string[] = [];
  storage.on('error', (e) => problems.push(e.message));
  // open() reports load errors on the next turn, once a listener could be attached.
  await new Promise<void>((resolve) => setImmediate(resolve));
  // Read as absent so open() could go on: what the OS refused is named here.
  for (const [path, why] of dir.backend.failed) problems.push(`${path} cannot be read (${why})`);
  return { storage, problems, close: () => storage.close() };
}

import type { MemoryBackend } from '../backend';
import { open } from '../open';

/**
 * One owner per storage path (DESIGN, second round): while a storage is open
 * on a disk (a memory backend is one store, as an fs path is), a second
 * open() of it fails with LOCKED. Returns the problem, or undefined when the
 * second open was refused as it must be. A second open that succeeds is
 * closed at once.
 */
export async function secondOpenProblem(backend: MemoryBackend, path: string, when: string): Promise<string | undefined> {
  try {
    const second = await open({ path, backend, sync: { signatures: false } });
    await second.close().catch(() => undefined);
    return `${path} ${when}: a second open() of its storage succeeded`;
  } catch (e) {
    const code = (e as { code?: string }).code;
    return code === 'LOCKED' ? undefined : `${path} ${when}: a second open() failed with ${code ?? String(e)}, not LOCKED`;
  }
}

/**
 * A closed storage lets go of its disk even when the disk died under it (a
 * crash): the lock can be taken again. Returns the problem, if any.
 */
export async function releasedProblem(backend: MemoryBackend, path: string): Promise<string | undefined> {
  try {
    const lock = await backend.lock?.(path);
    await lock?.release();
    return undefined;
  } catch (e) {
    return `${path}: its storage is closed but the disk stays locked (${(e as Error).message})`;
  }
}

import { SyncomError } from '../errors';
import { createMemoryBackend } from './memory-backend';
import { opfsBackend } from './opfs-backend';
import type { OpfsBackendOptions } from './opfs-backend';
import type { OpfsDirectoryHandle } from './opfs-types';
import type { Backend } from './types';

/** What `browserBackend()` returns: a backend, and whether what it stores outlives the page. */
export type BrowserBackend = Backend & {
  /** True on OPFS; false on the memory fallback: records, keys and the registry are gone at the next reload. */
  readonly persistent: boolean;
  /** On the fallback, why, in one line an app can show. */
  readonly warning?: string;
};

type StorageManagerLike = { getDirectory?: () => Promise<OpfsDirectoryHandle> };

/** Why OPFS cannot serve here, or undefined when it can (with the root it gave). */
async function probeOpfs(options: OpfsBackendOptions): Promise<{ root?: OpfsDirectoryHandle; why?: string }> {
  if (options.root) return { root: options.root };
  const g = globalThis as unknown as { navigator?: { storage?: StorageManagerLike }; FileSystemFileHandle?: { prototype?: object }; isSecureContext?: boolean };
  if (typeof g.navigator?.storage?.getDirectory !== 'function') {
    // Browsers keep navigator.storage from a page served over plain http (other than localhost): the browser has OPFS, the page does not.
    return { why: g.isSecureContext === false ? 'the page is no secure context (https, or localhost), so the browser gives it no Origin Private File System' : 'this browser has no Origin Private File System' };
  }
  const proto = g.FileSystemFileHandle?.prototype as { createWritable?: unknown } | undefined;
  if (proto && typeof proto.createWritable !== 'function') return { why: 'no OPFS writes outside a worker here' };
  try {
    return { root: await g.navigator.storage.getDirectory() };
  } catch (e) {
    // Some private modes refuse the origin's storage (SecurityError).
    return { why: `the browser refused its storage (${(e as { name?: string } | null)?.name ?? String(e)})` };
  }
}

/** The memory backend for a page, with a lock that needs no Node (a second open() of it is LOCKED). */
function memoryFallback(why: string): BrowserBackend {
  const warning = `syncom: ${why}; records are kept in memory and will not survive a reload`;
  const memory = createMemoryBackend();
  let held = false;
  const lock = async (path: string) => {
    if (held) throw new SyncomError('LOCKED', `the storage at ${path} is locked: this page has it open already`, { status: 423, path });
    held = true;
    let released = false;
    return { release: async () => { if (!released) { released = true; held = false; } } };
  };
  return { ...memory, lock, persistent: false, warning };
}

/**
 * The backend for a store in a browser: OPFS (`opfsBackend(options)`) where
 * the browser has it, otherwise the memory backend, flagged `persistent:
 * false` with a `warning` (also logged once with console.warn) for the app to
 * show: such a store starts empty, with a new identity, at every reload.
 *
 * @example
 * const backend = await browserBackend({ dir: 'notes' });
 * if (!backend.persistent) banner(backend.warning);
 * const storage = await open({ path: 'notes', backend });
 */
export async function browserBackend(options: OpfsBackendOptions = {}): Promise<BrowserBackend> {
  const probe = await probeOpfs(options);
  if (!probe.root) {
    const fallback = memoryFallback(probe.why as string);
    console.warn(fallback.warning);
    return fallback;
  }
  return { ...opfsBackend({ ...options, root: probe.root }), persistent: true };
}

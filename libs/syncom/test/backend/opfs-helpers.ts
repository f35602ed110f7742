import { opfsBackend } from '../../src/backend';
import type { OpfsBackendOptions } from '../../src/backend';
import { open } from '../../src/open';
import type { Storage } from '../../src/storage';
import type { OpenOptions } from '../../src/storage/options';
import { nodeKeys } from '../log/helpers';
import { FakeLocks, FakeOpfs } from './fake-opfs';

/** One origin: its OPFS, with this test file's node keys in each of `dirs` (key pairs are slow to make), and its Web Locks. */
export async function origin(...dirs: string[]): Promise<{ fs: FakeOpfs; locks: FakeLocks }> {
  const fs = new FakeOpfs();
  const root = fs.root();
  for (const dir of dirs.length ? dirs : ['notes']) {
    const store = await root.getDirectoryHandle(dir, { create: true });
    await store.getDirectoryHandle('keys', { create: true });
    for (const [path, text] of Object.entries(await nodeKeys())) fs.put(`${dir}/${path}`, text);
  }
  return { fs, locks: new FakeLocks() };
}

/** Every file of the origin with its content: what a second writer would change. */
export function contents(fs: FakeOpfs): Record<string, string | undefined> {
  return Object.fromEntries(fs.paths().map((p) => [p, fs.text(p)]));
}

/** open() a store of `dir` on the origin's OPFS, as a page (tab) alive now would. */
export function openTab(
  o: { fs: FakeOpfs; locks: FakeLocks },
  backend: Omit<OpfsBackendOptions, 'root' | 'locks'> = {},
  options: Omit<OpenOptions, 'path' | 'backend'> = {},
): Promise<Storage> {
  const dir = backend.dir ?? 'notes';
  return open({ path: dir, backend: opfsBackend({ root: o.fs.root(), locks: o.locks, ...backend, dir }), ...options });
}

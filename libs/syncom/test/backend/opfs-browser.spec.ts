import { browserBackend } from '../../src/backend';
import { open } from '../../src/open';
import { FakeLocks, FakeOpfs } from './fake-opfs';
import { origin } from './opfs-helpers';

/** Run `f` with these browser globals (navigator, FileSystemFileHandle), then put Node's back. */
async function inBrowser<T>(globals: Record<string, unknown>, f: () => Promise<T>): Promise<T> {
  const saved = Object.keys(globals).map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)] as const);
  for (const [k, v] of Object.entries(globals)) Object.defineProperty(globalThis, k, { value: v, configurable: true, writable: true });
  try {
    return await f();
  } finally {
    for (const [k, d] of saved) {
      if (d) Object.defineProperty(globalThis, k, d);
      else delete (globalThis as Record<string, unknown>)[k];
    }
  }
}

describe('browserBackend(): OPFS where the browser has it, memory (flagged) where not', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('REG-8: on OPFS it is persistent and writes the store under dir', async () => {
    const o = await origin('notes');
    const navigator = { storage: { getDirectory: async () => o.fs.root() }, locks: o.locks };
    await inBrowser({ navigator }, async () => {
      const backend = await browserBackend({ dir: 'notes' });
      expect(backend.persistent).toBe(true);
      expect(backend.warning).toBeUndefined();
      const s = await open({ path: 'notes', backend });
      await s.set('a', { title: 'kept' });
      await s.close();
    });
    expect(o.fs.paths().filter((p) => p.startsWith('notes/records/'))).not.toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it.each([
    ['no navigator.storage.getDirectory', {}, 'no Origin Private File System'],
    ['a storage that refuses (a private mode)', { navigator: { storage: { getDirectory: () => Promise.reject(new DOMException('denied', 'SecurityError')) } } }, 'refused its storage (SecurityError)'],
    ['OPFS without writable streams on the page', { navigator: { storage: { getDirectory: async () => new FakeOpfs().root() } }, FileSystemFileHandle: { prototype: {} } }, 'outside a worker'],
  ])('with %s it falls back to memory, persistent: false, with a warning logged once', async (_, globals, why) => {
    await inBrowser(globals, async () => {
      const backend = await browserBackend({ dir: 'notes', locks: new FakeLocks() });
      expect(backend.persistent).toBe(false);
      expect(backend.warning).toContain(why);
      expect(backend.warning).toContain('will not survive a reload');
      expect(warn.mock.calls).toEqual([[backend.warning]]);
      const s = await open({ path: 'notes', backend });
      await s.set('a', { title: 'in memory' });
      expect(await s.get('a')).toEqual({ title: 'in memory' });
      await expect(open({ path: 'notes', backend })).rejects.toMatchObject({ code: 'LOCKED', status: 423 });
      await s.close();
    });
  });
});

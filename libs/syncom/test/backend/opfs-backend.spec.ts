import { opfsBackend } from '../../src/backend';
import type { Backend } from '../../src/backend';
import { runBackendTests } from './backend-suite';
import { FakeLocks, FakeOpfs } from './fake-opfs';

/** The suite's lock test names a pid, which a browser has not: the Web Lock is tested in opfs-lock.spec.ts. */
function withoutLock(backend: Backend): Backend {
  const { lock: _lock, ...rest } = backend;
  return rest;
}

const OPFS_CAPS = { emptyIsMissing: true };

runBackendTests('opfs (fake Chromium OPFS)', async () => ({
  backend: withoutLock(opfsBackend({ root: new FakeOpfs().root(), locks: new FakeLocks() })),
  cleanup: async () => undefined,
}), OPFS_CAPS);
runBackendTests('opfs, in a sub-directory', async () => ({
  backend: withoutLock(opfsBackend({ root: new FakeOpfs().root(), dir: 'stores/notes', locks: new FakeLocks() })),
  cleanup: async () => undefined,
}), OPFS_CAPS);

describe('opfs backend', () => {
  let fs: FakeOpfs;
  let backend: Backend;
  beforeEach(() => {
    fs = new FakeOpfs();
    backend = opfsBackend({ root: fs.root(), dir: 'store', locks: new FakeLocks() });
  });

  it('REG-8: keeps the files under its directory, in the fs backend layout', async () => {
    await backend.mkdir('remote');
    await backend.write('remote/wss%3A%2F%2Fhub%2Fapi.json', '{"url":"wss://hub/api"}');
    await backend.mkdir('log/open');
    await backend.write('log/open/1.json', '{}');
    expect(fs.paths()).toEqual(['store/log/open/1.json', 'store/remote/wss%3A%2F%2Fhub%2Fapi.json']);
    expect(fs.text('store/remote/wss%3A%2F%2Fhub%2Fapi.json')).toBe('{"url":"wss://hub/api"}');
  });

  it('GUAR-18: a write is committed at close(): a page that dies before it leaves the old content, and list hides the swap it left', async () => {
    await backend.write('f', 'old');
    // The page writes through its own handle and dies before close().
    const handle = await (await fs.root().getDirectoryHandle('store')).getFileHandle('f');
    const stream = await (handle.createWritable as NonNullable<typeof handle.createWritable>)();
    await stream.write('new, half');
    fs.crash();
    const after = opfsBackend({ root: fs.root(), dir: 'store', locks: new FakeLocks() });
    expect(fs.paths()).toEqual(['store/f', 'store/f.crswap']);
    expect(await after.read('f')).toBe('old');
    expect(await after.list('')).toEqual(['f']);
    await after.write('f', 'next');
    expect(await after.read('f')).toBe('next');
  });

  it('GUAR-18: a file a dead page created but never committed is empty, and missing to read, list and exists', async () => {
    await backend.write('kept', 'x');
    fs.dieAtNextClose((p) => p === 'store/new');
    await expect(backend.write('new', 'never committed')).rejects.toBeDefined();
    expect(fs.text('store/new')).toBe('');
    const after = opfsBackend({ root: fs.root(), dir: 'store', locks: new FakeLocks() });
    expect(await after.read('new')).toBeUndefined();
    expect(await after.exists('new')).toBe(false);
    expect(await after.list('')).toEqual(['kept']);
    await after.write('new', 'now');
    expect(await after.read('new')).toBe('now');
  });

  it('runs the changes of one file in call order: a remove waits for the stream of a write before it (Chromium refuses to remove a file being written)', async () => {
    await Promise.all([backend.write('f', 'x'), backend.remove('f'), backend.write('f', 'y'), backend.write('g', 'x'), backend.remove('g')]);
    expect(await backend.read('f')).toBe('y');
    expect(await backend.read('g')).toBeUndefined();
    expect(fs.paths()).toEqual(['store/f']);
  });

  it('GUAR-17: durable is accepted and adds nothing (OPFS has no fsync); the commit is the close()', async () => {
    await backend.write('d', 'x', { durable: true });
    await backend.overwrite('d', 'y', { durable: true });
    expect(fs.text('store/d')).toBe('y');
  });

  it('maps OPFS errors to the fs codes the engine knows; a read or mkdir so refused is IO_ERROR naming the path, as on node:fs', async () => {
    await backend.mkdir('dir');
    await backend.write('file', 'x');
    await expect(backend.read('dir')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'store/dir', cause: { code: 'EISDIR' } });
    await expect(backend.write('dir', 'x')).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(backend.mkdir('file')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'store/file', cause: { code: 'EEXIST' } });
    await expect(backend.mkdir('file/sub')).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'ENOTDIR' } });
    await expect(backend.write('file/sub', 'x')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await backend.read('file/sub')).toBeUndefined();
    expect(await backend.list('file')).toEqual([]);
    expect(await backend.exists('file/sub')).toBe(false);
  });

  it('maps any other OPFS error (NotReadableError, InvalidStateError, ...) to EIO naming the path, the DOMException as cause; reads wrap it in IO_ERROR', async () => {
    await backend.write('file', 'x');
    const eio = (path: string, name: string) => expect.objectContaining({ code: 'EIO', path, message: expect.stringContaining(`'${path}'`), cause: expect.objectContaining({ name }) });
    // A read, list, exists or mkdir rejects as node:fs's do: IO_ERROR naming the file under the origin's root, the fs-like error as cause.
    const io = (path: string, name: string) => expect.objectContaining({ code: 'IO_ERROR', path: `store/${path}`, cause: eio(path, name) });
    // The file's content cannot be read (a disk error under the browser's storage).
    const file = await (await fs.root().getDirectoryHandle('store')).getFileHandle('file');
    const getFile = jest.spyOn(Object.getPrototypeOf(file) as { getFile(): Promise<unknown> }, 'getFile').mockRejectedValue(new DOMException('the file could not be read', 'NotReadableError'));
    try {
      await expect(backend.read('file')).rejects.toEqual(io('file', 'NotReadableError'));
      await expect(backend.list('')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'store', cause: { code: 'EIO', cause: { name: 'NotReadableError' } } });
      await expect(backend.exists('file')).rejects.toEqual(io('file', 'NotReadableError'));
    } finally {
      getFile.mockRestore();
    }
    // Every handle of a page the browser tore down throws InvalidStateError.
    fs.crash();
    await expect(backend.read('file')).rejects.toEqual(io('file', 'InvalidStateError'));
    await expect(backend.write('file', 'y')).rejects.toEqual(eio('file', 'InvalidStateError'));
    await expect(backend.remove('file')).rejects.toEqual(eio('file', 'InvalidStateError'));
    await expect(backend.mkdir('sub')).rejects.toEqual(io('sub', 'InvalidStateError'));
    await expect(backend.list('')).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'EIO', cause: { name: 'InvalidStateError' } } });
    await expect(backend.exists('file')).rejects.toEqual(io('file', 'InvalidStateError'));
  });

  it('refuses a bad path before it reaches OPFS, never outside its directory', async () => {
    await expect(backend.write('../escaped', 'x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(backend.write('a.crswap.tmp-1', 'x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(() => opfsBackend({ dir: '../other' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(fs.paths()).toEqual([]);
  });

  it('rejects (never throws) with UNSUPPORTED, its cause ENOTSUP, where the page has no OPFS', async () => {
    const none = opfsBackend({ locks: new FakeLocks() });
    await expect(none.read('a')).rejects.toMatchObject({ code: 'UNSUPPORTED', message: expect.stringContaining('getDirectory'), cause: { code: 'ENOTSUP' } });
    await expect(none.mkdir('')).rejects.toMatchObject({ code: 'UNSUPPORTED', cause: { code: 'ENOTSUP' } });
  });

  it('rejects with UNSUPPORTED, its cause ENOTSUP, where OPFS has no writable streams (Safari before 26, outside a worker)', async () => {
    const root = fs.root();
    const noStreams = {
      ...root,
      kind: 'directory', name: '',
      getDirectoryHandle: root.getDirectoryHandle.bind(root),
      removeEntry: root.removeEntry.bind(root),
      values: root.values.bind(root),
      getFileHandle: async (name: string, o?: { create?: boolean }) => ({ ...(await root.getFileHandle(name, o)), createWritable: undefined, kind: 'file', name }),
    };
    const b = opfsBackend({ root: noStreams, locks: new FakeLocks() });
    await expect(b.write('a', 'x')).rejects.toMatchObject({ code: 'UNSUPPORTED', message: expect.stringContaining('worker'), cause: { code: 'ENOTSUP' } });
  });

  it('reads the committed bytes as UTF-8 and writes strings as UTF-8', async () => {
    await backend.write('u', 'é🚀');
    expect((fs.node('store/u') as { bytes: Uint8Array }).bytes.byteLength).toBe(6);
    expect(await backend.read('u')).toBe('é🚀');
  });
});

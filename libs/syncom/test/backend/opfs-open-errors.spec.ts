import { opfsBackend } from '../../src/backend';
import { isSyncomError } from '../../src/errors';
import { open } from '../../src/open';
import { FakeLocks, FakeOpfs } from './fake-opfs';
import { openTab, origin } from './opfs-helpers';

/** What open() rejected with (the test fails if it resolves). */
async function refusal(o: Awaited<ReturnType<typeof origin>>): Promise<unknown> {
  return openTab(o).then(async (s) => { await s.close(); throw new Error('open() resolved'); }, (e: unknown) => e);
}

describe('open() of a damaged store on OPFS fails with the codes node:fs gives', () => {
  it('a directory where keys/sign-public.pem should be: IO_ERROR naming the path, the fs-like EISDIR as cause', async () => {
    const o = await origin();
    const keys = await (await o.fs.root().getDirectoryHandle('notes')).getDirectoryHandle('keys');
    await keys.removeEntry('sign-public.pem');
    await keys.getDirectoryHandle('sign-public.pem', { create: true });
    const e = await refusal(o);
    expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
    expect(e).toMatchObject({ path: 'notes/keys/sign-public.pem', cause: { code: 'EISDIR' } });
    expect((e as Error).message).toContain('keys/sign-public.pem');
  });

  it('a file the disk cannot give back (NotReadableError): IO_ERROR naming it, the EIO and the DOMException as causes', async () => {
    const o = await origin();
    const s = await openTab(o);
    await s.set('a', { title: 'one' });
    await s.close();
    const file = await (await (await o.fs.root().getDirectoryHandle('notes')).getDirectoryHandle('keys')).getFileHandle('sign-public.pem');
    const proto = Object.getPrototypeOf(file) as { getFile(): Promise<unknown> };
    const real = proto.getFile;
    const getFile = jest.spyOn(proto, 'getFile').mockImplementation(function (this: { name: string }) {
      if (this.name === 'sign-public.pem') return Promise.reject(new DOMException('the file could not be read', 'NotReadableError'));
      return real.call(this);
    });
    try {
      const e = await refusal(o);
      expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
      expect(e).toMatchObject({ path: 'notes/keys/sign-public.pem', cause: { code: 'EIO', cause: { name: 'NotReadableError' } } });
    } finally {
      getFile.mockRestore();
    }
  });

  it('a file where keys/ should be: IO_ERROR naming the path', async () => {
    const o = await origin();
    const notes = await o.fs.root().getDirectoryHandle('notes');
    await notes.removeEntry('keys', { recursive: true });
    o.fs.put('notes/keys', 'not a directory');
    const e = await refusal(o);
    expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
    expect(e).toMatchObject({ path: 'notes/keys' });
  });
});

describe('open() on a page whose OPFS is missing or cannot write', () => {
  it('no OPFS at all: open() fails with UNSUPPORTED, the fs-like ENOTSUP as cause', async () => {
    const e = await open({ path: 'n', backend: opfsBackend({ locks: new FakeLocks() }) }).catch((x: unknown) => x);
    expect(isSyncomError(e, 'UNSUPPORTED')).toBe(true);
    expect(e).toMatchObject({ message: expect.stringContaining('getDirectory'), cause: { code: 'ENOTSUP' } });
  });

  it('OPFS without writable streams: open() fails with UNSUPPORTED at its first write, not a raw ENOTSUP', async () => {
    const root = new FakeOpfs().root();
    const noStreams = {
      ...root, kind: 'directory' as const, name: '',
      getDirectoryHandle: root.getDirectoryHandle.bind(root), removeEntry: root.removeEntry.bind(root), values: root.values.bind(root),
      getFileHandle: async (name: string, o?: { create?: boolean }) => ({ ...(await root.getFileHandle(name, o)), createWritable: undefined, kind: 'file' as const, name }),
    };
    const e = await open({ path: 'n', backend: opfsBackend({ root: noStreams, locks: new FakeLocks() }) }).catch((x: unknown) => x);
    expect(isSyncomError(e, 'UNSUPPORTED')).toBe(true);
    expect(e).toMatchObject({ message: expect.stringContaining('worker'), cause: { code: 'ENOTSUP' } });
  });
});

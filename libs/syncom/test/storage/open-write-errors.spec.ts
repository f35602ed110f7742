import { isSyncomError, open } from '../../src';
import { createMemoryBackend, type MemoryOp } from '../../src/backend';

/**
 * open() writes before anything is open: format.json, the key pairs, the
 * log's index and the store's folders. A write failing there (a read-only
 * store, a full disk) rejected with the raw OS error, no SyncomError, where
 * a read failing gave IO_ERROR naming the path; and the memory backend's
 * read, list, exists and mkdir rejected with fs-like errors where node:fs's
 * and OPFS's give IO_ERROR. Each is IO_ERROR naming the path, the OS error
 * its cause.
 */

const CHANGES: readonly MemoryOp[] = ['write', 'overwrite', 'remove', 'mkdir', 'fsync'];

/** What open() of `backend` rejected with; undefined when it resolved (the storage closed again). */
async function refusal(backend: ReturnType<typeof createMemoryBackend>): Promise<unknown> {
  return open({ path: 's', backend }).then(async (s) => { await s.close(); return undefined; }, (e: unknown) => e);
}

/** The refusals of open() failing at each change it makes (code EROFS), in order, until one opens. */
async function eachFailure(make: () => Promise<ReturnType<typeof createMemoryBackend>>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (let k = 1; k <= 100; k++) {
    const backend = await make();
    backend.failAt(k, { code: 'EROFS', ops: CHANGES });
    const e = await refusal(backend);
    if (e === undefined) return seen;
    seen.push(e);
  }
  throw new Error('open() failed at 100 points');
}

describe('open(): a write that fails before anything is open', () => {
  it('GUAR-3: a new store: every change open() makes (format.json, keys/, each key file and its fsync, log/, index.json, records/, remote/) fails with IO_ERROR naming the path, EROFS its cause', async () => {
    const seen = await eachFailure(async () => createMemoryBackend());
    expect(seen.length).toBeGreaterThanOrEqual(14);
    for (const e of seen) {
      expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
      expect(e).toMatchObject({ cause: { code: 'EROFS' } });
    }
    const paths = seen.map((e) => (e as { path: string }).path);
    expect(paths).toEqual(expect.arrayContaining(['format.json', 'keys', 'keys/sign-private.pem', 'keys/seal-public.pem', 'log/open', 'log/index.json', 'records', 'remote']));
    for (const [i, e] of seen.entries()) expect((e as Error).message).toContain(paths[i]);
  });

  it('GUAR-3: a store written before: the folders open() makes sure of fail with IO_ERROR too', async () => {
    const first = createMemoryBackend();
    const s = await open({ path: 's', backend: first });
    await s.insert({ a: 1 });
    await s.close();
    const snapshot = first.snapshot();
    const seen = await eachFailure(async () => createMemoryBackend({ from: snapshot }));
    expect(seen.length).toBeGreaterThanOrEqual(4);
    for (const e of seen) expect(e).toMatchObject({ code: 'IO_ERROR', cause: { code: 'EROFS' } });
  });
});

describe('the memory backend: reads that fail, as on node:fs', () => {
  it('a read, list, exists or mkdir failing other than "absent" is IO_ERROR naming the path, the fs-like error its cause', async () => {
    const disk = createMemoryBackend();
    await disk.write('f', 'x');
    await disk.mkdir('d');
    await expect(disk.read('missing')).resolves.toBeUndefined();
    await expect(disk.read('d')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'd', cause: { code: 'EISDIR' } });
    await expect(disk.mkdir('f/g')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'f/g', cause: { code: 'ENOTDIR' } });
    disk.failAt(1, { ops: ['list', 'exists'], persistent: true });
    await expect(disk.list('d')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'd', cause: { code: 'EIO' } });
    await expect(disk.exists('f')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'f', cause: { code: 'EIO' } });
    // A write keeps its fs-like error, for its caller to wrap (as node:fs's).
    await expect(disk.write('d', 'x')).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('a directory where keys/sign-public.pem should be: open() fails with IO_ERROR naming the path, as on node:fs', async () => {
    const backend = createMemoryBackend();
    await (await open({ path: 's', backend })).close();
    await backend.remove('keys/sign-public.pem');
    await backend.mkdir('keys/sign-public.pem');
    const e = await refusal(backend);
    expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
    expect(e).toMatchObject({ path: 'keys/sign-public.pem', cause: { code: 'EISDIR' } });
  });

  it('a read failing at open (EIO) is IO_ERROR naming the path', async () => {
    const backend = createMemoryBackend();
    await (await open({ path: 's', backend })).close();
    backend.failAt(1, { ops: ['read'] });
    expect(await refusal(backend)).toMatchObject({ code: 'IO_ERROR', path: 'format.json', cause: { code: 'EIO' } });
  });
});

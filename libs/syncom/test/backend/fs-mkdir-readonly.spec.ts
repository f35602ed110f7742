// The module object itself (an import * namespace has fixed properties): fs-backend calls its mkdir through it.
import fsp = require('node:fs/promises');
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsBackend } from '../../src/backend';

/**
 * A store folder to be made on a read-only mount: Node 20's recursive mkdir
 * answers ENOENT there ("no such file or directory", of a path whose parent
 * exists), where a plain mkdir says EROFS. Seen running the hub with
 * SYNCOM_PATH on a read-only file system; mounting one needs root, so the
 * test gives mkdir the two answers Node gave there.
 */
describe('fs backend: making a folder where the OS refuses it', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'syncom-fs-mkdir-'));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(root, { recursive: true, force: true });
  });

  it('IO_ERROR names the cause the OS gives for the folder itself (EROFS), not the ENOENT of a recursive mkdir', async () => {
    const erofs = (p: string) => Object.assign(new Error(`EROFS: read-only file system, mkdir '${p}'`), { code: 'EROFS' });
    const enoent = (p: string) => Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${p}'`), { code: 'ENOENT' });
    jest.spyOn(fsp, 'mkdir').mockImplementation(async (p, o) => {
      throw (typeof o === 'object' && o?.recursive ? enoent : erofs)(String(p));
    });
    const store = join(root, 'store');
    await expect(createFsBackend(store).mkdir('')).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'EROFS' }, message: expect.stringContaining('read-only file system') });
    // open() locks the folder first, which makes it: the hub's start met this one.
    await expect(createFsBackend(store).lock!(store)).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'EROFS' }, message: expect.stringContaining('read-only file system') });
  });

  it('a store folder several levels under the deepest folder that exists is refused with the cause the OS gives there (EROFS), not ENOENT', async () => {
    // As a read-only mount answers: a recursive mkdir ENOENT; a plain one EROFS where the parent exists, else ENOENT.
    jest.spyOn(fsp, 'mkdir').mockImplementation(async (p, o) => {
      const parentThere = await fsp.stat(dirname(String(p))).then(() => true, () => false);
      const code = typeof o === 'object' && o?.recursive ? 'ENOENT' : parentThere ? 'EROFS' : 'ENOENT';
      throw Object.assign(new Error(`${code}: mkdir '${String(p)}'`), { code });
    });
    const store = join(root, 'data', 'syncom', 'store');
    await expect(createFsBackend(store).lock!(store)).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'EROFS' } });
  });

  it('a folder whose parent is truly missing and cannot be made stays ENOENT', async () => {
    jest.spyOn(fsp, 'mkdir').mockImplementation(async (p) => {
      throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${String(p)}'`), { code: 'ENOENT' });
    });
    await expect(createFsBackend(join(root, 'a', 'b')).mkdir('')).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'ENOENT' } });
  });
});

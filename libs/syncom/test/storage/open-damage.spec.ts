import { mkdir, mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSyncomError, open, type SyncomError } from '../../src';
import { createFsBackend } from '../../src/backend/fs-backend';
import { generateSealingKeys, type PemKeyPair } from '../../src/op';

/**
 * A store directory damaged while it was closed, beyond keys/: a registry
 * file that does not parse, a directory where a file should be (or a file
 * where a directory should be). What open() meets is reported with a code,
 * where an application can see it.
 */

let root: string;
beforeEach(async () => { root = await mkdtemp(join(tmpdir(), 'syncom-open-damage-')); });
afterEach(async () => { await rm(root, { recursive: true, force: true }); });

let sealing: Promise<PemKeyPair> | undefined;

/** A closed store at root/store with one record and one registered node. */
async function store(): Promise<string> {
  const path = join(root, 'store');
  const seal = await (sealing ??= generateSealingKeys());
  await mkdir(join(path, 'keys'), { recursive: true });
  await writeFile(join(path, 'keys/seal-public.pem'), seal.publicPem);
  await writeFile(join(path, 'keys/seal-private.pem'), seal.privatePem);
  const s = await open({ path });
  await s.insert({ title: 'kept' });
  await s.sync.addNode({ url: 'memory://hub', token: 't' });
  await s.close();
  return path;
}

/** What open() of `path` rejected with (the test fails if it resolves). */
async function refusal(path: string): Promise<unknown> {
  return open({ path }).then(async (s) => { await s.close(); throw new Error('open() resolved'); }, (e: unknown) => e);
}

/** The next turn of the event loop, after the one open() reports its startup errors in. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('damage found at open(), beyond keys/', () => {
  it('REG-7: a registry file that does not parse reaches a storage error listener attached right after open() resolves, naming the file', async () => {
    const path = await store();
    const [name] = await readdir(join(path, 'remote'));
    await writeFile(join(path, 'remote', name), '{"url":"memory://h');
    const s = await open({ path });
    const seen: SyncomError[] = [];
    s.on('error', (e) => seen.push(e));
    s.sync.on('error', (e) => seen.push(e));
    await nextTurn();
    expect(seen).toHaveLength(1);
    // The file by its url's label: its name is the url, whose user info and query are credentials.
    expect(seen[0]).toMatchObject({ code: 'OP_UNREADABLE', file: 'remote/<file of memory://hub>' });
    expect(seen[0].message).toContain('addNode()');
    expect(s.sync.listNodes()).toEqual([]);
    await s.close();
  });

  it('a directory where keys/sign-public.pem should be: open() fails with IO_ERROR naming the path, not a raw EISDIR', async () => {
    const path = await store();
    await unlink(join(path, 'keys/sign-public.pem'));
    await mkdir(join(path, 'keys/sign-public.pem'));
    const e = await refusal(path);
    expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
    expect(e).toMatchObject({ path: join(path, 'keys/sign-public.pem'), cause: { code: 'EISDIR' } });
    expect((e as Error).message).toContain(join(path, 'keys/sign-public.pem'));
  });

  it('a directory where LOCK should be: open() fails with IO_ERROR naming it, not a raw EISDIR', async () => {
    const path = await store();
    await mkdir(join(path, 'LOCK'));
    const e = await refusal(path);
    expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
    expect(e).toMatchObject({ path: join(path, 'LOCK'), cause: { code: 'EISDIR' } });
  });

  it('a file where keys/ should be: open() fails with IO_ERROR naming the path', async () => {
    const path = await store();
    await rm(join(path, 'keys'), { recursive: true });
    await writeFile(join(path, 'keys'), 'not a directory');
    const e = await refusal(path);
    expect(isSyncomError(e, 'IO_ERROR')).toBe(true);
    expect(e).toMatchObject({ path: join(path, 'keys') });
  });

  it('the fs backend: a read of a directory is IO_ERROR with the OS error as its cause; a missing file stays undefined', async () => {
    const backend = createFsBackend(root);
    await backend.mkdir('d');
    await expect(backend.read('missing')).resolves.toBeUndefined();
    await expect(backend.read('d')).rejects.toMatchObject({ code: 'IO_ERROR', path: join(root, 'd'), cause: { code: 'EISDIR' } });
  });
});

import { mkdtemp, open, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsBackend } from '../../src/backend';
import { runBackendTests } from './backend-suite';

async function tempRoot(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'syncom-fs-backend-'));
}

runBackendTests('fs', async () => {
  const root = await tempRoot();
  return { backend: createFsBackend(root), cleanup: () => rm(root, { recursive: true, force: true }) };
});

/** FileHandle is not exported by node: reach its prototype through a handle. */
async function fileHandlePrototype(dir: string): Promise<{ sync: FileHandle['sync'] }> {
  const handle = await open(dir, 'r');
  await handle.close();
  return Object.getPrototypeOf(handle) as { sync: FileHandle['sync'] };
}

describe('fs backend', () => {
  let root: string;
  beforeEach(async () => {
    root = await tempRoot();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(root, { recursive: true, force: true });
  });

  it('a named pipe or a device where a file belongs is refused unread (IO_ERROR, ENOTREG), not waited on for good', async () => {
    const backend = createFsBackend(root);
    execFileSync('mkfifo', [join(root, 'pipe')]);
    await expect(backend.read('pipe')).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'ENOTREG' } });
    const { symlink } = await import('node:fs/promises');
    await symlink('/dev/zero', join(root, 'zero'));
    await expect(backend.read('zero')).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'ENOTREG' } });
    expect(await backend.read('absent')).toBeUndefined();
  });

  it('ignores (and keeps) a leftover x.tmp-123 file in list', async () => {
    const backend = createFsBackend(root);
    await writeFile(join(root, 'x.tmp-123'), 'half a write');
    await backend.write('x', 'whole');
    expect(await backend.list('')).toEqual(['x']);
    expect((await readdir(root)).sort()).toEqual(['x', 'x.tmp-123']);
  });

  it('taking the lock removes what a crash left under temp names (a purged record\'s data may sit in one), two folders down, the appender\'s spare too (no append of this process made it: a store opened and closed without a write kept it for good), but a lock being taken', async () => {
    await mkdir(join(root, 'log', 'open'), { recursive: true });
    await mkdir(join(root, 'records'), { recursive: true });
    const left = ['log/seg-1.json.tmp-ab12cd34ef56', 'records/3.json.tmp-0123456789ab', 'log/open/k1.tmp-recycled', 'log/index.json.tmp-ffffffffffff', 'log/open/next.tmp-spare'];
    const kept = ['LOCK.tmp-aaaaaaaaaaaa', 'log/seg-1.json', 'records/3.json'];
    for (const p of [...left, ...kept]) await writeFile(join(root, p), 'x');
    const backend = createFsBackend(root);
    const lock = await backend.lock!(root);
    const present = async (p: string) => stat(join(root, p)).then(() => true, () => false);
    for (const p of left) expect(await present(p)).toBe(false);
    for (const p of kept) expect(await present(p)).toBe(true);
    await lock.release();
  });

  it('GUAR-17: a durable write fsyncs the temp file before the rename and the directory after it', async () => {
    const backend = createFsBackend(root);
    await backend.write('f', 'old');
    const proto = await fileHandlePrototype(root);
    const original = proto.sync;
    const seen: string[] = [];
    const sync = jest.spyOn(proto, 'sync').mockImplementation(async function (this: FileHandle) {
      seen.push(await readFile(join(root, 'f'), 'utf8'));
      return original.call(this);
    });
    await backend.write('f', 'new', { durable: true });
    expect(sync).toHaveBeenCalledTimes(2);
    expect(seen).toEqual(['old', 'new']);
  });

  it('GUAR-17: without durable, nothing is fsynced; a durable overwrite fsyncs once', async () => {
    const backend = createFsBackend(root);
    const sync = jest.spyOn(await fileHandlePrototype(root), 'sync');
    await backend.write('f', 'a');
    await backend.overwrite('f', 'b');
    expect(sync).not.toHaveBeenCalled();
    await backend.overwrite('f', 'c', { durable: true });
    expect(sync).toHaveBeenCalledTimes(1);
  });

  it('GUAR-20: overwrite keeps the inode (in place, no rename); write replaces it', async () => {
    const backend = createFsBackend(root);
    await backend.write('f', 'first, the longer content');
    const before = (await stat(join(root, 'f'))).ino;
    await backend.overwrite('f', 'scrubbed');
    expect((await stat(join(root, 'f'))).ino).toBe(before);
    expect(await readdir(root)).toEqual(['f']);
    await backend.write('f', 'renamed in');
    expect((await stat(join(root, 'f'))).ino).not.toBe(before);
  });

  it('leaves no temp file after writes, nor after a failed rename', async () => {
    const backend = createFsBackend(root);
    await backend.write('a', 'x', { durable: true });
    await mkdir(join(root, 'dir'));
    await writeFile(join(root, 'dir', 'child'), 'x');
    await expect(backend.write('dir', 'over a directory')).rejects.toHaveProperty('code');
    expect((await readdir(root)).sort()).toEqual(['a', 'dir']);
  });

  it('wraps OS errors other than ENOENT in IO_ERROR, naming the path, the OS error as cause', async () => {
    const backend = createFsBackend(root);
    await backend.mkdir('d');
    await expect(backend.read('d')).rejects.toMatchObject({ code: 'IO_ERROR', cause: { code: 'EISDIR' } });
  });

  it('creates nothing outside the root for a rejected path', async () => {
    const backend = createFsBackend(join(root, 'inner'));
    await backend.mkdir('');
    await expect(backend.write('../escaped', 'x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await readdir(root)).toEqual(['inner']);
  });

  it('refuses an empty root', () => {
    expect(() => createFsBackend('')).toThrow(TypeError);
  });
});

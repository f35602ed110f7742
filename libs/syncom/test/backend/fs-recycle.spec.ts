import fs from 'node:fs';
import { mkdtemp, open as openHandle, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsBackend } from '../../src/backend';
import { MAX_RECYCLED, RECYCLED_SUFFIX } from '../../src/backend/fs-recycle';
import type { Backend } from '../../src/backend/types';
import { open } from '../../src';

/**
 * The fs backend recycles the files the log lets go of at a seal: a removed
 * batch file is kept, zeroed, under a temp name, and the next new batch file
 * of its directory is written into it and renamed into place, so no file is
 * created (see fs-recycle.ts).
 */
describe('fs backend: recycled files', () => {
  let root: string;
  let backend: Backend;
  const path = (p: string) => join(root, p);
  const recycled = async (dir = 'log/open') => (await readdir(path(dir))).filter((n) => n.endsWith(RECYCLED_SUFFIX));
  beforeEach(async () => {
    // A clock that stands still: on a loaded machine one write slower than 0.5 ms would send the next
    // ones to the pool, where a seal's files are removed rather than recycled (fs-main-thread-writes covers that).
    jest.spyOn(performance, 'now').mockReturnValue(1);
    root = await mkdtemp(join(tmpdir(), 'syncom-recycle-'));
    backend = createFsBackend(root);
    await backend.mkdir('log/open');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await backend.close?.();
    await rm(root, { recursive: true, force: true });
  });

  it('a file removed with recycle is kept zeroed under a temp name, hidden from list, and the next in-place write of its directory reuses it', async () => {
    await backend.write('log/open/1.json', '{"from":1,"ops":["a long enough batch"]}', { inPlace: true });
    const { ino } = await stat(path('log/open/1.json'));
    await backend.remove('log/open/1.json', { recycle: true });
    expect(await backend.list('log/open')).toEqual([]);
    const [kept] = await recycled();
    const bytes = await readFile(path(`log/open/${kept}`));
    expect(bytes.length).toBe('{"from":1,"ops":["a long enough batch"]}'.length);
    expect(bytes.every((b) => b === 0)).toBe(true);

    await backend.write('log/open/2.json', '{"from":2}', { inPlace: true });
    expect((await stat(path('log/open/2.json'))).ino).toBe(ino);
    expect(await backend.read('log/open/2.json')).toBe('{"from":2}');
    expect(await recycled()).toEqual([]);
    expect(await backend.list('log/open')).toEqual(['2.json']);
  });

  it('a file an older store made 0644 is the owner\'s alone once reused: the batch written into it is 0600', async () => {
    await writeFile(path('log/open/1.json'), '{"from":1,"ops":["made by an older version"]}', { mode: 0o644 });
    await fs.promises.chmod(path('log/open/1.json'), 0o644);
    await backend.remove('log/open/1.json', { recycle: true });
    await backend.write('log/open/2.json', '{"from":2}', { inPlace: true });
    expect(await backend.read('log/open/2.json')).toBe('{"from":2}');
    expect((await stat(path('log/open/2.json'))).mode & 0o777).toBe(0o600);
  });

  it('no file is created for a batch written into a recycled one (open, write, cut, rename on the main thread)', async () => {
    for (let i = 1; i <= 4; i++) await backend.write(`log/open/${i}.json`, `{"from":${i}}`, { inPlace: true });
    const inodes = await Promise.all([1, 2, 3, 4].map(async (i) => (await stat(path(`log/open/${i}.json`))).ino));
    for (let i = 1; i <= 4; i++) await backend.remove(`log/open/${i}.json`, { recycle: true });
    const create = jest.spyOn(fs, 'writeFileSync');
    const rename = jest.spyOn(fs, 'renameSync');
    for (let i = 5; i <= 8; i++) await backend.write(`log/open/${i}.json`, `{"from":${i},"x":"${'y'.repeat(i)}"}`, { inPlace: true });
    expect(create).not.toHaveBeenCalled();
    // Each renamed into place on the main thread, and each one of the four files let go of.
    expect(rename).toHaveBeenCalledTimes(4);
    const reused = await Promise.all([5, 6, 7, 8].map(async (i) => (await stat(path(`log/open/${i}.json`))).ino));
    expect(reused.sort()).toEqual(inodes.sort());
    expect(await backend.list('log/open')).toEqual(['5.json', '6.json', '7.json', '8.json']);
    for (let i = 5; i <= 8; i++) expect(await backend.read(`log/open/${i}.json`)).toBe(`{"from":${i},"x":"${'y'.repeat(i)}"}`);
  });

  it('an atomic write takes a recycled file of its directory: the same inode, renamed over the file it replaces, no temp file; with none at hand it goes through a temp file', async () => {
    await backend.mkdir('records');
    await backend.write('records/1.json', '[{"id":"a","merged":"into another file"}]');
    await backend.write('records/2.json', '[{"id":"b"}]');
    const { ino } = await stat(path('records/1.json'));
    await backend.remove('records/1.json', { recycle: true });
    expect(await recycled('records')).toHaveLength(1);
    const create = jest.spyOn(fs, 'writeFileSync');
    await backend.write('records/2.json', '[{"id":"b","v":2}]');
    expect(create).not.toHaveBeenCalled();
    expect((await stat(path('records/2.json'))).ino).toBe(ino);
    expect(await backend.read('records/2.json')).toBe('[{"id":"b","v":2}]');
    expect(await readdir(path('records'))).toEqual(['2.json']);
    // None left: a temp file and a rename, as before (a new inode).
    await backend.write('records/3.json', '[{"id":"c"}]');
    expect((await stat(path('records/3.json'))).ino).not.toBe(ino);
    expect((await readdir(path('records'))).sort()).toEqual(['2.json', '3.json']);
  });

  it('GUAR-17: durable, a recycled file is written, cut and renamed, and it and its directory are fsynced before the write resolves', async () => {
    await backend.write('log/open/1.json', 'first batch, a longer one', { inPlace: true });
    await backend.remove('log/open/1.json', { recycle: true });
    const handle = await openHandle(root, 'r');
    await handle.close();
    const sync = jest.spyOn(Object.getPrototypeOf(handle) as { sync(): Promise<void> }, 'sync');
    await backend.write('log/open/2.json', 'second', { inPlace: true, durable: true });
    expect(sync).toHaveBeenCalledTimes(2);
    expect(await backend.read('log/open/2.json')).toBe('second');
    expect(await recycled()).toEqual([]);
  });

  it('GUAR-17: durable, an atomic write into a recycled file fsyncs it and its directory before it resolves', async () => {
    await backend.mkdir('records');
    await backend.write('records/1.json', '[{"id":"a","merged":"into another file"}]');
    const { ino } = await stat(path('records/1.json'));
    await backend.remove('records/1.json', { recycle: true });
    const handle = await openHandle(root, 'r');
    await handle.close();
    const sync = jest.spyOn(Object.getPrototypeOf(handle) as { sync(): Promise<void> }, 'sync');
    await backend.write('records/2.json', '[{"id":"b"}]', { durable: true });
    expect(sync).toHaveBeenCalledTimes(2);
    expect((await stat(path('records/2.json'))).ino).toBe(ino);
    expect(await readdir(path('records'))).toEqual(['2.json']);
  });

  it('a plain remove unlinks; a recycled file larger than 64 KiB is removed through the pool, not kept nor unlinked on the main thread', async () => {
    await backend.write('log/open/1.json', 'x', { inPlace: true });
    await backend.remove('log/open/1.json');
    await backend.write('log/open/2.json', 'y'.repeat(70 * 1024), { inPlace: true });
    const onMain = jest.spyOn(fs, 'unlinkSync');
    await backend.remove('log/open/2.json', { recycle: true });
    expect(onMain).not.toHaveBeenCalled();
    await backend.remove('log/open/3.json', { recycle: true });
    expect(await readdir(path('log/open'))).toEqual([]);
  });

  const ioError = () => Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });

  it('a write into a recycled file that fails (its rename refused) rejects with the error, leaves neither file behind, and the next write goes on', async () => {
    await backend.write('log/open/1.json', 'a sealed batch', { inPlace: true });
    await backend.remove('log/open/1.json', { recycle: true });
    jest.spyOn(fs, 'renameSync').mockImplementationOnce(() => { throw ioError(); });
    await expect(backend.write('log/open/2.json', 'lost', { inPlace: true })).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(path('log/open'))).toEqual([]);
    await backend.write('log/open/2.json', 'again', { inPlace: true });
    expect(await backend.read('log/open/2.json')).toBe('again');
  });

  it('a file that cannot be zeroed is not kept: the remove rejects with the error and nothing of it stays', async () => {
    await backend.write('log/open/1.json', 'a sealed batch', { inPlace: true });
    jest.spyOn(fs, 'openSync').mockImplementationOnce(() => { throw ioError(); });
    await expect(backend.remove('log/open/1.json', { recycle: true })).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(path('log/open'))).toEqual([]);
  });

  it(`at most ${MAX_RECYCLED} files are kept a directory; close() removes them and the backend stays usable`, async () => {
    const n = MAX_RECYCLED + 3;
    for (let i = 0; i < n; i++) await writeFile(path(`log/open/${i}.json`), 'z');
    for (let i = 0; i < n; i++) await backend.remove(`log/open/${i}.json`, { recycle: true });
    expect(await recycled()).toHaveLength(MAX_RECYCLED);
    expect(await readdir(path('log/open'))).toHaveLength(MAX_RECYCLED);
    await backend.close?.();
    expect(await readdir(path('log/open'))).toEqual([]);
    await backend.write('log/open/9.json', 'after close', { inPlace: true });
    expect(await backend.read('log/open/9.json')).toBe('after close');
  });

  it('recycled files an earlier process left (a crash) are removed at the directory\'s first use, never read or reused', async () => {
    await writeFile(path(`log/open/abc0${RECYCLED_SUFFIX}`), 'a batch half written into a recycled file');
    await writeFile(path('log/open/7.json.tmp-1234'), 'a temp file of another kind stays');
    await backend.write('log/open/1.json', '{"from":1}', { inPlace: true });
    expect((await readdir(path('log/open'))).sort()).toEqual(['1.json', '7.json.tmp-1234']);
  });

  /** Every file under `dir` (temp names too) whose bytes hold `text`. */
  async function filesHolding(dir: string, text: string): Promise<string[]> {
    const found: string[] = [];
    for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
      const file = join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
      if (e.isFile() && (await readFile(file, 'utf8')).includes(text)) found.push(file);
    }
    return found;
  }

  /** A store at `store/` that sealed (4 batches a segment) 20 inserts `secret <i>`, with recycled files kept. */
  async function sealedStore(): Promise<{ s: Awaited<ReturnType<typeof open>>; dir: string; ids: string[] }> {
    const dir = path('store');
    const s = await open({ path: dir, sync: { log: { rollAfter: 4 } } });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await s.insert({ title: `secret ${i}` }));
    await s.replica.idle();
    expect(await recycled('store/log/open')).not.toEqual([]);
    return { s, dir, ids };
  }

  it('GUAR-20: after a purge no file of the store holds the record, recycled files included', async () => {
    const { s, dir, ids } = await sealedStore();
    await s.purge(ids[3]);
    await s.replica.idle();
    expect(await filesHolding(dir, 'secret 3"')).toEqual([]);
    await s.close();
  });

  it('LOG-4: with log.lines a seal removes its open files: nothing would take recycled ones (a new open file is the appender\'s spare)', async () => {
    const s = await open({ path: path('lined'), sync: { log: { rollAfter: 4, lines: true } } });
    for (let i = 0; i < 20; i++) await s.insert({ title: `line ${i}` });
    await s.replica.idle();
    expect((await readdir(path('lined/log'))).some((n) => n.startsWith('seg-'))).toBe(true);
    expect(await recycled('lined/log/open')).toEqual([]);
    await s.close();
  });

  it('LOG-4: a store that sealed keeps no readable copy of a sealed batch in a recycled file, reloads whole, and leaves none after close', async () => {
    const { s, dir, ids } = await sealedStore();
    for (const name of await recycled('store/log/open')) expect(await readFile(join(dir, 'log/open', name), 'utf8')).not.toContain('secret');
    await s.close();
    expect((await readdir(join(dir, 'log/open'))).filter((n) => n.includes('.tmp-'))).toEqual([]);
    const again = await open({ path: dir });
    expect((await again.list()).map((r) => r.data.title).sort()).toEqual(ids.map((_, i) => `secret ${i}`).sort());
    await again.close();
  });
});

import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsBackend, createMemoryBackend, type CrashDamage } from '../../src/backend';
import { SPARE_NAME } from '../../src/backend/fs-append';

/** Descriptors this process holds (Linux; 0 elsewhere, where the checks pass trivially). */
const fds = () => (process.platform === 'linux' ? readdirSync('/proc/self/fd').length : 0);

/** Resolves once `file` exists: its directory watched from now (the spare is made through the pool, in the background). */
function whenMade(file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(file), () => {
      if (!existsSync(file)) return;
      watcher.close();
      resolve();
    });
    if (existsSync(file)) {
      watcher.close();
      resolve();
    }
  });
}

describe('Backend.append, node:fs', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'syncom-append-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('GUAR-17: appends add to the end of one file kept open (one descriptor for any number of appends), durable or not', async () => {
    const b = createFsBackend(dir);
    await b.mkdir('log');
    const before = fds();
    for (let i = 0; i < 50; i++) await b.append?.('log/a.json', `${i}\n`, { durable: i % 10 === 0, fresh: i === 0 });
    expect(fds() - before).toBeLessThanOrEqual(1);
    expect(await readFile(join(dir, 'log/a.json'), 'utf8')).toBe(Array.from({ length: 50 }, (_, i) => `${i}\n`).join(''));
    await b.close?.();
    expect(fds() - before).toBeLessThanOrEqual(0);
    // Usable after close: the file is opened again, at its end.
    await b.append?.('log/a.json', 'more\n');
    expect((await b.read('log/a.json'))?.endsWith('49\nmore\n')).toBe(true);
    await b.close?.();
  });

  it('fresh starts the file anew (a leftover at that name is cut); another file or another call on the path lets the open one go', async () => {
    const b = createFsBackend(dir);
    await writeFile(join(dir, 'x.json'), 'a leftover of a failed append');
    await b.append?.('x.json', 'one\n', { fresh: true });
    await b.append?.('x.json', 'two\n');
    expect(await b.read('x.json')).toBe('one\ntwo\n');
    await b.overwrite('x.json', 'scrubbed\n');
    await b.append?.('x.json', 'three\n');
    expect(await b.read('x.json')).toBe('scrubbed\nthree\n');
    await b.remove('x.json');
    await b.append?.('x.json', 'four\n');
    expect(await b.read('x.json')).toBe('four\n');
    await b.append?.('y.json', 'y\n');
    await b.append?.('x.json', 'five\n', { durable: true });
    expect(await b.read('x.json')).toBe('four\nfive\n');
    await b.close?.();
  });

  it('a fresh file is an empty spare made ahead, renamed into place; list hides the spare and close removes it', async () => {
    const b = createFsBackend(dir);
    await b.mkdir('log/open');
    // The spare of the next start: an empty file under a temp name, beside the open file.
    const spare = join(dir, 'log/open', SPARE_NAME);
    const made = whenMade(spare);
    await b.append?.('log/open/1.json', 'one\n', { fresh: true });
    await b.append?.('log/open/1.json', 'two\n');
    await made;
    await expect(readFile(spare, 'utf8')).resolves.toBe('');
    const { ino } = await stat(spare);
    await b.append?.('log/open/3.json', 'three\n', { fresh: true });
    expect((await stat(join(dir, 'log/open/3.json'))).ino).toBe(ino);
    await b.append?.('log/open/4.json', 'four\n', { fresh: true, durable: true });
    expect(await b.list('log/open')).toEqual(['1.json', '3.json', '4.json']);
    expect(await b.read('log/open/3.json')).toBe('three\n');
    expect(await b.read('log/open/4.json')).toBe('four\n');
    await b.close?.();
    expect(readdirSync(join(dir, 'log/open')).sort()).toEqual(['1.json', '3.json', '4.json']);
  });

  it('a spare removed from outside, or a leftover at its name, changes nothing: the file is created', async () => {
    const b = createFsBackend(dir);
    await b.append?.('a.json', 'a\n', { fresh: true });
    await rm(join(dir, SPARE_NAME), { force: true });
    await b.append?.('b.json', 'b\n', { fresh: true });
    expect(await b.read('b.json')).toBe('b\n');
    await b.close?.();
    // A crash's leftover spare (not empty here) is cut and used, never appended to.
    await writeFile(join(dir, SPARE_NAME), 'left over');
    const c = createFsBackend(dir);
    await c.append?.('c.json', 'c\n', { fresh: true });
    await c.append?.('d.json', 'd\n', { fresh: true });
    expect(await c.read('d.json')).toBe('d\n');
    await c.close?.();
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json', 'c.json', 'd.json']);
  });

  it('GUAR-9: an append that cannot open its file (a directory stands there) rejects and keeps no descriptor', async () => {
    const b = createFsBackend(dir);
    await b.mkdir('sub');
    const before = fds();
    for (let i = 0; i < 20; i++) await expect(b.append?.('sub', 'x', { durable: i % 2 === 0 })).rejects.toMatchObject({ code: 'EISDIR' });
    expect(fds() - before).toBeLessThan(10);
    await expect(b.append?.('../out', 'x')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('Backend.append, memory', () => {
  it('GUAR-17: a durable append whose fsync fails is cut back; a crash at that fsync leaves the bytes in place, not durable', async () => {
    const b = createMemoryBackend();
    await b.append?.('f', 'one\n', { durable: true, fresh: true });
    b.failAt(1, { ops: ['fsync'] });
    await expect(b.append?.('f', 'two\n', { durable: true })).rejects.toMatchObject({ code: 'EIO' });
    expect(await b.read('f')).toBe('one\n');
    b.crashAt(1, { ops: ['fsync'] });
    await expect(b.append?.('f', 'three\n', { durable: true })).rejects.toMatchObject({ code: 'ECRASH' });
    expect(b.snapshot().files.f).toEqual({ current: 'one\nthree\n', durable: 'one\n', inPlace: true });
  });

  it.each<CrashDamage>(['torn', 'zeroed', 'lost', 'reordered'])('a power cut (%s) damages only what appends added since the last fsync', async (damage) => {
    for (let seed = 1; seed <= 20; seed++) {
      const b = createMemoryBackend();
      await b.append?.('f', 'durable line\n', { durable: true, fresh: true });
      await b.append?.('f', 'pending one\npending two\n');
      const after = (await b.crash(damage, seed).read('f')) as string;
      expect(after.startsWith('durable line\n')).toBe(true);
      expect('durable line\npending one\npending two\n'.startsWith(after.replace(/\0+$/, ''))).toBe(true);
    }
  });

  it("counts an append as a 'write' (failAt, crashAt), and append: false makes a backend without it", async () => {
    const b = createMemoryBackend();
    b.failAt(1, { ops: ['write'], code: 'ENOSPC' });
    await expect(b.append?.('f', 'x')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await b.read('f')).toBeUndefined();
    expect(b.opCount(['write'])).toBe(1);
    const without = createMemoryBackend({ append: false });
    expect(without.append).toBeUndefined();
    expect(without.crash('none').append).toBeUndefined();
  });
});

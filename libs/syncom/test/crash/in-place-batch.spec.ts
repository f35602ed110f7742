import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsBackend, createMemoryBackend, type CrashDamage } from '../../src/backend';
import { parseLogFile } from '../../src/log/files';
import type { SyncomError } from '../../src';
import { internals } from '../../src/testing/internals';
import { nodeKeys, openOn, T0 } from '../log/helpers';

/**
 * A log batch is written in place (no temp file, no rename): one file per
 * batch on a backend without append, a line added to the newest open file on
 * one with it. A crash inside that write can leave a torn batch: always the
 * newest, its ops never announced. The reopen drops it without a report,
 * every resolved write is kept, and its position is reused.
 */
describe('a torn newest batch written in place, one file per batch (a backend without append)', () => {
  it.each<CrashDamage>(['torn', 'zeroed'])(
    "GUAR-6, GUAR-17, LOG-1: a durable append cut at its fsync (%s) is dropped on reopen; every resolved write stays and the next append reuses its position",
    async (damage) => {
      const b = createMemoryBackend({ files: await nodeKeys(), append: false });
      const options = { now: () => T0, durable: true };
      const s = await openOn(b, options);
      await s.set('a', { title: 'one' });
      await s.set('b', { title: 'two' });
      await internals(s).committer.idle();
      b.crashAt(1, { ops: ['fsync'] });
      await expect(s.set('c', { title: 'three' })).rejects.toBeDefined();
      // The batch's bytes stand in place, not synced: what a crash may tear.
      expect(b.snapshot().files['log/open/3.json']).toMatchObject({ inPlace: true, durable: undefined });
      const disk = b.crash(damage, 11);
      const torn = disk.files().get('log/open/3.json');
      expect(torn).toBeDefined();
      expect(parseLogFile(torn)).toBeUndefined();

      const errors: SyncomError[] = [];
      const again = await openOn(disk, options);
      again.on('error', (e) => errors.push(e));
      expect(await again.get('a')).toMatchObject({ title: 'one' });
      expect(await again.get('b')).toMatchObject({ title: 'two' });
      expect(await again.get('c')).toBeUndefined();
      await again.set('d', { title: 'four' });
      const file = parseLogFile(disk.files().get('log/open/3.json'));
      expect(file?.from).toBe(3);
      expect(file?.ops).toHaveLength(1);
      await again.close();
      expect(errors).toEqual([]);
    },
  );
});

describe('node:fs in-place writes', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'syncom-inplace-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('GUAR-6, LOG-1: a torn newest batch file on disk is dropped on reopen without OP_UNREADABLE, and its position is written again', async () => {
    const backend = createFsBackend(dir);
    const s = await openOn(backend, { now: () => T0 });
    await s.set('a', { title: 'one' });
    const head = internals(s).log.head;
    await s.close();
    const open = join(dir, 'log', 'open');
    // What a crash inside the in-place write of the next batch leaves: a prefix of its text.
    await writeFile(join(open, `${head + 1}.json`), `{"from":${head + 1},"chain":"x","ops":[[1,`);
    const again = await openOn(createFsBackend(dir), { now: () => T0 });
    const errors: SyncomError[] = [];
    again.on('error', (e) => errors.push(e));
    expect(await again.get('a')).toMatchObject({ title: 'one' });
    await again.set('b', { title: 'two' });
    await internals(again).committer.idle();
    expect(await again.get('b')).toMatchObject({ title: 'two' });
    await again.close();
    expect(errors).toEqual([]);
    const third = await openOn(createFsBackend(dir), { now: () => T0 });
    expect(await third.get('b')).toMatchObject({ title: 'two' });
    await third.close();
  });

  it('GUAR-17: an in-place write replaces a leftover file (a failed append whose discard failed), durable or not, and leaves no temp file', async () => {
    const backend = createFsBackend(dir);
    await backend.write('x.json', 'a much longer leftover, torn', { inPlace: true });
    await backend.write('x.json', 'short', { inPlace: true, durable: true });
    expect(await backend.read('x.json')).toBe('short');
    await backend.write('x.json', 'again', { inPlace: true });
    expect(await backend.read('x.json')).toBe('again');
    expect(await readdir(dir)).toEqual(['x.json']);
  });

  it('GUAR-17, REG-4: a durable remove unlinks the file and syncs its folder (a registry file removed stays so); an absent file is no error', async () => {
    const backend = createFsBackend(dir);
    await backend.mkdir('remote');
    await backend.write('remote/a.json', '{}', { durable: true });
    await backend.remove('remote/a.json', { durable: true });
    await backend.remove('remote/a.json', { durable: true });
    expect(await readdir(join(dir, 'remote'))).toEqual([]);
  });

  it('GUAR-9: a durable in-place write that cannot open its file (a directory stands there) rejects with EISDIR and does not keep the directory handle it opened beside it', async () => {
    const backend = createFsBackend(dir);
    await backend.mkdir('sub');
    const fds = () => (process.platform === 'linux' ? readdirSync('/proc/self/fd').length : 0);
    const before = fds();
    for (let i = 0; i < 20; i++) {
      await expect(backend.write('sub', 'x', { inPlace: true, durable: true })).rejects.toMatchObject({ code: 'EISDIR' });
    }
    // 20 leaked handles would show; a stray descriptor of the test runner would not reach that.
    expect(fds() - before).toBeLessThan(10);
  });
});

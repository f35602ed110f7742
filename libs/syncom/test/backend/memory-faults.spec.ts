import { createMemoryBackend } from '../../src/backend';
import type { MemoryBackend } from '../../src/backend';

describe('memory backend: failAt', () => {
  it('fails the k-th mutating operation once, with an fs-shaped EIO, without effect', async () => {
    const disk = createMemoryBackend();
    await disk.write('before', 'x');
    disk.failAt(2);
    await disk.write('a', '1');
    expect(await disk.read('a')).toBe('1'); // reads are not counted
    const failed = disk.write('b', '2');
    await expect(failed).rejects.toThrow('EIO: i/o error');
    await expect(failed).rejects.toMatchObject({ code: 'EIO', syscall: 'write', path: 'b' });
    expect(await disk.exists('b')).toBe(false);
    await disk.remove('a');
    await disk.write('b', '3');
    expect([...disk.files().keys()]).toEqual(['b', 'before']);
  });

  it('keeps failing when persistent, until clearFaults', async () => {
    const disk = createMemoryBackend();
    disk.failAt(1, { code: 'ENOSPC', persistent: true });
    await expect(disk.write('a', '1')).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(disk.mkdir('d')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'd', cause: { code: 'ENOSPC' } });
    await expect(disk.overwrite('a', '2')).rejects.toMatchObject({ code: 'ENOSPC' });
    disk.clearFaults();
    await disk.write('a', '1');
    expect(await disk.read('a')).toBe('1');
  });

  it('counts reads when ops says so', async () => {
    const disk = createMemoryBackend({ files: { a: 'x' } });
    disk.failAt(2, { ops: ['read'] });
    await disk.write('b', 'y');
    expect(await disk.read('a')).toBe('x');
    await expect(disk.read('a')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'a', cause: { code: 'EIO' } });
    expect(await disk.read('a')).toBe('x');
  });

  it('refuses a k that is not a positive integer', () => {
    expect(() => createMemoryBackend().failAt(0)).toThrow(TypeError);
    expect(() => createMemoryBackend().crashAt(1.5)).toThrow(TypeError);
  });
});

/** A run of five mutating operations, recording the files after each. */
async function scenario(disk: MemoryBackend, states?: Map<string, string>[]): Promise<void> {
  const record = () => states?.push(disk.files());
  await disk.mkdir('log');
  record();
  await disk.write('log/a', 'A');
  record();
  await disk.write('log/index', 'I', { durable: true });
  record();
  await disk.overwrite('log/a', 'a');
  record();
  await disk.remove('log/index');
  record();
}

describe('memory backend: crashAt and opCount', () => {
  it('counts the mutating operations, failed ones included', async () => {
    const disk = createMemoryBackend();
    await scenario(disk);
    await disk.read('log/a');
    await disk.list('log');
    expect(disk.opCount()).toBe(5);
    disk.failAt(1);
    await expect(disk.write('x', 'y')).rejects.toThrow();
    expect(disk.opCount()).toBe(6);
  });

  it('replays a run crashing at each I/O point: the state is the one before that op', async () => {
    const states: Map<string, string>[] = [new Map()];
    const clean = createMemoryBackend();
    await scenario(clean, states);
    const n = clean.opCount();
    for (let k = 1; k <= n; k++) {
      const disk = createMemoryBackend();
      disk.crashAt(k);
      await expect(scenario(disk)).rejects.toMatchObject({ code: 'ECRASH' });
      expect(disk.opCount()).toBe(k);
      expect(disk.files()).toEqual(states[k - 1]);
      await expect(disk.read('log/a')).rejects.toMatchObject({ code: 'ECRASH' });
      disk.clearFaults();
      await expect(disk.list('log')).rejects.toMatchObject({ code: 'ECRASH' });
      expect(disk.crash().files()).toEqual(states[k - 1]);
    }
  });
});

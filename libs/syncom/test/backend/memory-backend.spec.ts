import { createMemoryBackend } from '../../src/backend';
import { runBackendTests } from './backend-suite';

runBackendTests('memory', async () => ({ backend: createMemoryBackend(), cleanup: async () => undefined }));
runBackendTests('memory, yielding with setImmediate', async () => ({
  backend: createMemoryBackend({ yieldEvery: 2 }),
  cleanup: async () => undefined,
}));

describe('memory backend', () => {
  it('shows its files as a copy of the current content', async () => {
    const disk = createMemoryBackend();
    await disk.mkdir('log');
    await disk.write('log/b', 'B');
    await disk.write('a', 'A', { durable: true });
    const files = disk.files();
    expect([...files]).toEqual([['a', 'A'], ['log/b', 'B']]);
    files.set('a', 'changed');
    expect(await disk.read('a')).toBe('A');
  });

  it('starts from initial files (durable) and from a snapshot', async () => {
    const disk = createMemoryBackend({ files: { 'log/index': '{}', './top': 't' } });
    expect(await disk.list('log')).toEqual(['index']);
    await disk.mkdir('empty/dir');
    await disk.write('top', 'pending');
    const copy = createMemoryBackend({ from: disk.snapshot() });
    expect(copy.files()).toEqual(disk.files());
    expect(await copy.exists('empty/dir')).toBe(true);
    await copy.write('top', 'only in the copy');
    expect(await disk.read('top')).toBe('pending');
    expect(await copy.crash('lost').read('top')).toBe('t');
  });

  it('is asynchronous: a write takes effect after the caller yields', async () => {
    const disk = createMemoryBackend();
    const pending = disk.write('a', 'x');
    expect(disk.files().has('a')).toBe(false);
    await pending;
    expect(disk.files().get('a')).toBe('x');
  });

  it('interleaves concurrent callers', async () => {
    const disk = createMemoryBackend({ yieldEvery: 1 });
    const order: string[] = [];
    const task = async (name: string) => {
      for (let i = 0; i < 3; i++) {
        await disk.write(name, String(i));
        order.push(name);
      }
    };
    await Promise.all([task('a'), task('b')]);
    expect(order).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('refuses a directory where a file is, like node:fs (a read or mkdir as IO_ERROR naming the path, a write with the fs-like error)', async () => {
    const disk = createMemoryBackend();
    await disk.write('f', 'x');
    await expect(disk.mkdir('f')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'f', cause: { code: 'EEXIST' } });
    await expect(disk.mkdir('f/g')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'f/g', cause: { code: 'ENOTDIR' } });
    await disk.mkdir('d');
    await expect(disk.write('d', 'x')).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(disk.read('d')).rejects.toMatchObject({ code: 'IO_ERROR', path: 'd', cause: { code: 'EISDIR' } });
  });
});

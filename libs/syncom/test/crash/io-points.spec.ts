import { createMemoryBackend, IO_POINTS } from '../../src/backend';

/** The memory backend's I/O points: a durable write is a write then an fsync, each a point to fail or crash at. */
describe('memory backend: fsync is an I/O point of its own (GUAR-17)', () => {
  it('a durable write counts an fsync; a plain one does not; opCount counts by kind', async () => {
    const disk = createMemoryBackend();
    await disk.write('a', '1');
    await disk.write('b', '2', { durable: true });
    await disk.overwrite('b', '3', { durable: true });
    expect(disk.opCount()).toBe(3);
    expect(disk.opCount(['fsync'])).toBe(2);
    expect(disk.opCount(IO_POINTS)).toBe(5);
  });

  it('a failed fsync of a write leaves the file as it was (the temp file is dropped) and says why', async () => {
    const disk = createMemoryBackend({ files: { a: 'old' } });
    disk.failAt(1, { code: 'ENOSPC', ops: ['fsync'] });
    await disk.write('a', 'plain');
    await expect(disk.write('a', 'new', { durable: true })).rejects.toMatchObject({ code: 'ENOSPC', syscall: 'fsync', path: 'a' });
    expect(await disk.read('a')).toBe('plain');
    await disk.write('a', 'new', { durable: true });
    expect(await disk.crash('lost').read('a')).toBe('new');
  });

  it('a failed fsync of an overwrite leaves the new bytes in place, not durable', async () => {
    const disk = createMemoryBackend({ files: { a: 'old-bytes' } });
    disk.failAt(1, { code: 'EIO', ops: ['fsync'], persistent: true });
    await expect(disk.overwrite('a', 'NEW', { durable: true })).rejects.toMatchObject({ code: 'EIO', syscall: 'fsync' });
    expect(await disk.read('a')).toBe('NEW');
    expect(await disk.crash('lost').read('a')).toBe('old-bytes');
  });

  it('crashAt over IO_POINTS dies at a durable write\'s fsync, before the rename: the file is untouched and the disk is dead', async () => {
    const disk = createMemoryBackend({ files: { a: 'old' } });
    disk.crashAt(2, { ops: IO_POINTS });
    expect(disk.isCrashed()).toBe(false);
    await expect(disk.write('a', 'new', { durable: true })).rejects.toMatchObject({ code: 'ECRASH', syscall: 'fsync' });
    expect(disk.isCrashed()).toBe(true);
    expect(disk.opCount(IO_POINTS)).toBe(2);
    for (const damage of ['none', 'lost', 'torn', 'zeroed', 'reordered'] as const) expect(await disk.crash(damage).read('a')).toBe('old');
  });

  it("a crash at an overwrite's fsync leaves the new bytes pending: the damage decides what survives", async () => {
    const text = 'x'.repeat(40);
    const run = async () => {
      const disk = createMemoryBackend({ files: { a: text }, seed: 3 });
      disk.crashAt(2, { ops: IO_POINTS });
      await expect(disk.overwrite('a', 'y'.repeat(40), { durable: true })).rejects.toMatchObject({ code: 'ECRASH' });
      return disk;
    };
    expect(await (await run()).crash('none').read('a')).toBe('y'.repeat(40));
    expect(await (await run()).crash('lost').read('a')).toBe(text);
    const torn = (await (await run()).crash('torn').read('a')) as string;
    expect(torn).toMatch(/^y*x*$/);
    expect(torn).toHaveLength(40);
    expect(await (await run()).crash('zeroed').read('a')).toMatch(/^y*\0*$/);
  });
});

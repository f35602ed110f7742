import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src';
import type { Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { nodeKeys, openOn, T0 } from './helpers';

const lines = { now: () => T0, sync: { log: { rollAfter: 64, lines: true } } };

async function settled(s: Storage): Promise<void> {
  await internals(s).committer.idle();
  await (internals(s).committer as unknown as { persisting: Promise<void> }).persisting;
}

/** The files holding `text`, temp names included. */
const holding = (b: MemoryBackend, text: string) => [...b.files()].filter(([, t]) => t.includes(text)).map(([p]) => p);

/**
 * A torn last line of an open file (an append a crash cut, never
 * acknowledged) is dropped by the load. It may hold a record's data, which no
 * batch holds, so a later purge of that record does not reach it: the load
 * cuts it off its file.
 */
describe('a torn batch line of a record purged later (log.lines)', () => {
  it('GUAR-20: the reopen cuts the torn line off its file, so once the purge resolved no file holds what it held of the record', async () => {
    // The disk a crash left: two whole lines, then a third cut inside the write of 'x' (never acknowledged).
    const b = createMemoryBackend({ files: await nodeKeys() });
    const s = await openOn(b, lines);
    await s.set('a', { i: 1 });
    await s.set('b', { i: 2 });
    await settled(s);
    const disk = createMemoryBackend({ from: b.snapshot() });
    await s.set('x', { secret: 'SECRET-X' });
    const third = (b.files().get('log/open/1.json') as string).split('\n')[2];
    await s.close();
    expect(third).toContain('SECRET-X');
    const file = disk.files().get('log/open/1.json') as string;
    await disk.write('log/open/1.json', file + third.slice(0, third.indexOf('SECRET-X') + 8));
    const errors: SyncomError[] = [];
    const again = await openOn(disk, lines);
    again.on('error', (e) => errors.push(e));
    expect(await again.get('x')).toBeUndefined();
    // Cut off at the open: the file's whole lines stay as they were.
    expect(disk.files().get('log/open/1.json')).toBe(file);
    await again.set('x', { secret: 'SECRET-X2' });
    await again.purge('x');
    await settled(again);
    expect(holding(disk, 'SECRET-X')).toEqual([]);
    await again.close();
    expect(holding(disk, 'SECRET-X')).toEqual([]);
    expect(errors).toEqual([]);
  });
});

import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import { internals } from '../../src/testing/internals';
import { nodeKeys, openOn, opened, T0 } from '../log/helpers';
import { failingPaths } from './failing-paths';

/**
 * An open that finds a record file damaged rebuilds its records from the log
 * and writes them to a record file of their own, so they outlive the segments
 * retention drops. When that write failed they were held in memory alone:
 * retention went on dropping segments, and the next open, rebuilding again
 * from what the log still held, had lost them. Now the commit pipeline writes
 * them with its next records write, and no batch is sealed (so no segment
 * dropped) until it has.
 */
const DAY = 86_400_000;

/** `b`, whose writes of record files fail with EIO while `failing.on`. */
const failingRecordWrites = (b: MemoryBackend, failing: { on: boolean }) => failingPaths(b, failing, 'write', (path) => path.startsWith('records/'));

describe('records an open rebuilt from the log and could not write', () => {
  it('GUAR-9 LOG-2 LOG-13: are written with the next records write, before retention may drop the ops they came from', async () => {
    const b = createMemoryBackend({ files: await nodeKeys() });
    const clock = { t: T0 };
    const options = { now: () => clock.t, sync: { retention: { days: 1 }, log: { rollAfter: 1 } } };
    const s0 = await openOn(b, options);
    await s0.set('doc', { title: 'only in the old segments' });
    await s0.set('other', { x: 1 });
    await s0.close();
    for (const [path, text] of b.files()) if (path.startsWith('records/') && text.includes('"doc"')) await b.write(path, 'torn');
    const failing = { on: true };
    const { s, errors } = await opened(failingRecordWrites(b, failing), options);
    expect(errors.map((e) => e.code)).toEqual(['OP_UNREADABLE', 'UNPERSISTED']);
    expect(errors[1].message).toMatch(/^records rebuilt from the log not written \(EIO.*\); held in memory and written with the next records write/);
    expect(await s.get('doc')).toEqual({ title: 'only in the old segments' });
    failing.on = false;
    // Two days on, new writes seal and let retention drop every segment the rebuilt record came from.
    clock.t += 2 * DAY;
    for (let i = 0; i < 4; i++) await s.set(`later${i}`, { i });
    await internals(s).committer.idle();
    expect(internals(s).log.floor).toBeGreaterThanOrEqual(2);
    await s.close();
    const again = await openOn(b, options);
    expect(await again.get('doc')).toEqual({ title: 'only in the old segments' });
    expect(await again.get('other')).toEqual({ x: 1 });
    await again.close();
  });
});

import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src';
import type { Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { nodeKeys, openOn, T0 } from '../log/helpers';
import { failingPaths, holding, scrubbedAtNextWrite, SECRET } from './failing-paths';

/**
 * A merge of record files writes the merged file, then removes the files it
 * took. A removal that fails (EIO, Windows' EBUSY) left a file out of the
 * store's list with its records' old states in it, and a later purge's scrub,
 * which rewrites the listed files, passed it by: the purge resolved with the
 * purged data still on disk. The merge now reports the file and removes it
 * again at its next merge, and a scrub removes it first or fails (so the
 * purge's batch stays unsealed and the scrub is tried again).
 */
const options = { now: () => T0, sync: { log: { lines: true } } };

/** `b`, whose removals of record files fail with EBUSY while `failing.on`. */
const failingRemoves = (b: MemoryBackend, failing: { on: boolean }) => failingPaths(b, failing, 'remove', (path) => path.startsWith('records/'), 'EBUSY');

/** A store holding x among 20 records, a record file each, its record files merged while their removals failed. */
async function mergedWhileFailing(failing: { on: boolean }): Promise<{ s: Storage; b: MemoryBackend; errors: SyncomError[] }> {
  const b = createMemoryBackend({ files: await nodeKeys() });
  const s = await openOn(failingRemoves(b, failing), options);
  const errors: SyncomError[] = [];
  s.on('error', (e) => errors.push(e));
  failing.on = true;
  // Each write's records in a file of their own: 16 files make a merge.
  for (let i = 0; i < 20; i++) {
    await (i === 0 ? s.set('x', { title: SECRET }) : s.set(`r${i}`, { i }));
    await internals(s).committer.idle();
  }
  // One merge of 16 files, reported once.
  expect(errors.map((e) => [e.code, e.message])).toEqual([['IO_ERROR', expect.stringMatching(/^record file records\/\d+\.json and 15 more, merged into a newer one, not removed \(EBUSY/)]]);
  return { s, b, errors };
}

describe('record files a merge could not remove', () => {
  it('GUAR-20: a purge of a record one of them holds fails its scrub while they stay, and scrubs them at the next write once they can go', async () => {
    const failing = { on: false };
    const { s, b, errors } = await mergedWhileFailing(failing);
    errors.length = 0;
    await s.purge('x');
    await internals(s).committer.idle();
    expect(errors.map((e) => e.message)).toContainEqual(expect.stringContaining('purge scrub failed: EBUSY'));
    expect(holding(b).length).toBeGreaterThan(0);
    await scrubbedAtNextWrite(s, b, failing);
  });

  it('GUAR-7 GUAR-20: are removed at a later merge, or by the purge that needs them gone; the store reopens with every record', async () => {
    const failing = { on: false };
    const { s, b } = await mergedWhileFailing(failing);
    failing.on = false;
    await s.purge('x');
    await internals(s).committer.idle();
    expect(holding(b)).toEqual([]);
    for (let i = 0; i < 20; i++) await s.set(`later${i}`, { i });
    await s.close();
    // The merges since removed every file they took: what is left is listed, and holds each record once at most.
    const again = await openOn(b, options);
    expect((await again.list()).length).toBe(39);
    expect(await again.get('x')).toBeUndefined();
    await again.close();
    expect(holding(b)).toEqual([]);
  });
});

import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src';
import type { Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { nodeKeys, openOn, T0 } from '../log/helpers';
import { failingPaths, holding, scrubbedAtNextWrite, SECRET } from './failing-paths';

/**
 * A purge's scrub that fails on an I/O error (a full disk, EIO) leaves the
 * record's data in the log and the record files. The purge stands (it is in
 * the log, the record reads purged) and the failure is reported; the scrub
 * is tried again at the next write, at close(), and at the next open, since
 * the purge's batch stays unsealed until a scrub of it succeeds. Sealed at
 * once, as it was, nothing scrubbed the data again unless the app purged the
 * id a second time.
 */
const options = { now: () => T0, sync: { log: { rollAfter: 2 } } };

/** `b`, whose writes of the scrub's journal fail with EIO while `failing.on`. */
const failingScrubs = (b: MemoryBackend, failing: { on: boolean }) => failingPaths(b, failing, 'write', (path) => path === 'log/scrub.json');

/** A store holding x and a few records beside it, x purged while its scrub fails: the storage, its errors and the disk. */
async function purgedWhileFailing(failing: { on: boolean }): Promise<{ s: Storage; b: MemoryBackend; errors: SyncomError[] }> {
  const b = createMemoryBackend({ files: await nodeKeys() });
  const s = await openOn(failingScrubs(b, failing), options);
  const errors: SyncomError[] = [];
  s.on('error', (e) => errors.push(e));
  await s.set('x', { title: SECRET });
  for (let i = 0; i < 5; i++) await s.set(`r${i}`, { i });
  failing.on = true;
  await s.purge('x');
  await internals(s).committer.idle();
  expect(errors.map((e) => e.code)).toEqual(['IO_ERROR']);
  expect(errors[0].message).toContain('purge scrub failed');
  expect(await s.get('x')).toBeUndefined();
  expect(holding(b).length).toBeGreaterThan(0);
  return { s, b, errors };
}

describe('a purge whose scrub failed on an I/O error', () => {
  it('GUAR-20: is scrubbed at the next write, and its batch sealed only then', async () => {
    const failing = { on: false };
    const { s, b } = await purgedWhileFailing(failing);
    // More writes while the disk still fails: the purge's batch stays open, however many seals pass.
    for (let i = 0; i < 6; i++) await s.set(`later${i}`, { i });
    await internals(s).committer.idle();
    expect(holding(b).length).toBeGreaterThan(0);
    const log = internals(s).log;
    const purge = log.read(0).find((e) => e.op.type === 'purge')?.pos as number;
    expect(log.batches.some((x) => x.from <= purge && purge <= x.to)).toBe(true);
    await scrubbedAtNextWrite(s, b, failing);
  });

  it('GUAR-20: is scrubbed at close() once the disk takes writes again', async () => {
    const failing = { on: false };
    const { s, b } = await purgedWhileFailing(failing);
    failing.on = false;
    await s.close();
    expect(holding(b)).toEqual([]);
  });

  it('GUAR-20 GUAR-22: failing through close() too, it is scrubbed by the next open before open() resolves', async () => {
    const failing = { on: false };
    const { s, b, errors } = await purgedWhileFailing(failing);
    await s.close();
    expect(errors.map((e) => e.code)).toEqual(['IO_ERROR', 'IO_ERROR']);
    expect(holding(b).length).toBeGreaterThan(0);
    const again = await openOn(b, options);
    expect(holding(b)).toEqual([]);
    expect(await again.get('x')).toBeUndefined();
    expect(await again.get('r4')).toEqual({ i: 4 });
    await again.close();
  });

  it('GUAR-20 GUAR-22: failing at the next open too, its batch stays unsealed through that open\'s writes and close(), and a later scrub takes the data', async () => {
    // The open's scrub failed and was only reported: its batch was sealed at the next persist, and nothing
    // scrubbed the data again unless the app purged the id a second time.
    const failing = { on: false };
    const { s, b } = await purgedWhileFailing(failing);
    await s.close();
    const again = await openOn(failingScrubs(b, failing), options);
    const errors: SyncomError[] = [];
    again.on('error', (e) => errors.push(e));
    for (let i = 0; i < 6; i++) await again.set(`later${i}`, { i });
    await internals(again).committer.idle();
    await again.close();
    expect(holding(b).length).toBeGreaterThan(0);
    const log = internals(again).log;
    const purge = log.read(0).find((e) => e.op.type === 'purge')?.pos as number;
    expect(log.batches.some((x) => x.from <= purge && purge <= x.to)).toBe(true);
    failing.on = false;
    const third = await openOn(failingScrubs(b, failing), options);
    await third.set('next', { n: 1 });
    await third.close();
    expect(holding(b)).toEqual([]);
  });
});

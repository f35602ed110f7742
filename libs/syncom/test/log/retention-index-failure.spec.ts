import { internals } from '../../src/testing/internals';
import type { Backend } from '../../src/backend/types';
import type { Storage } from '../../src/storage';
import type { SyncomError } from '../../src';
import { freshBackend, indexJson, openOn, reopenedWithErrors, segmentFiles, T0 } from './helpers';

const options = { now: () => T0, sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } };

/** `batches` batches of 20 concurrent writes on a few records. */
async function writeBatches(s: Storage, batches: number): Promise<void> {
  for (let i = 0; i < batches; i++) await Promise.all(Array.from({ length: 20 }, (_, j) => s.set(`r${j % 7}`, { title: `${i}.${j}` })));
  await internals(s).committer.idle();
  await (internals(s).committer as unknown as { sealing: Promise<void> }).sealing;
}

/**
 * Retention writes index.json without the segments it lets go, then removes
 * their files. When that write fails, the segments are already out of memory:
 * their files stayed on disk for the rest of the session (and after close()),
 * where no purge's scrub reached them, until the next open removed them.
 */
describe('retention whose index.json write fails', () => {
  it('LOG-13 GUAR-20: the segments it let go are removed once index.json is written without them, so a purge leaves no copy of the record in them', async () => {
    const b = await freshBackend();
    let failed = false;
    // The first index.json write that raises the floor (retention's own) fails once.
    const backend: Backend = { ...b, write: async (path, data, o) => {
      if (!failed && path === 'log/index.json' && /"floor":[1-9]/.test(data)) {
        failed = true;
        throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
      }
      return b.write(path, data, o);
    } };
    const s = await openOn(backend, options);
    const errors: SyncomError[] = [];
    s.on('error', (e) => errors.push(e));
    await s.set('x', { title: 'SECRET-X' });
    await writeBatches(s, 56);
    expect(failed).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(['IO_ERROR']);
    const floor = internals(s).log.floor;
    expect(floor).toBeGreaterThan(0);
    await s.purge('x');
    const holding = () => [...b.files()].filter(([, t]) => t.includes('SECRET-X')).map(([p]) => p);
    expect(holding()).toEqual([]);
    // index.json lists what the files hold: the segments let go are gone from both.
    expect((indexJson(b).segments as { from: number }[]).map((x) => x.from)).toEqual(segmentFiles(b));
    expect(indexJson(b)).toMatchObject({ floor });
    await writeBatches(s, 10);
    await s.close();
    expect(holding()).toEqual([]);
    const again = await reopenedWithErrors(b, options);
    expect(again.errors).toEqual([]);
    expect(await again.s.get('x')).toBeUndefined();
    await again.s.close();
  });
});

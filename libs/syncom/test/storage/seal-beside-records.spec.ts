import type { MemoryBackend } from '../../src/backend';
import type { Backend } from '../../src/backend/types';
import { internals } from '../../src/testing/internals';
import { freshBackend, openOn, segmentFiles, T0 } from '../log/helpers';

/**
 * `b` with its writes to paths matching `held` waiting until release(); the
 * calls that changed a file, in the order they landed; landed(match) resolves
 * once a write whose path and data match lands.
 */
function gated(b: MemoryBackend, held: RegExp) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const calls: string[] = [];
  const waiting: { match: (path: string, data: string) => boolean; resolve: () => void }[] = [];
  const backend: Backend = {
    ...b,
    write: async (path, data, options) => {
      if (held.test(path)) await gate;
      await b.write(path, data, options);
      calls.push(`write ${path}`);
      for (const w of waiting) if (w.match(path, data)) w.resolve();
    },
    overwrite: async (path, data, options) => {
      await b.overwrite(path, data, options);
      calls.push(`overwrite ${path}`);
    },
    remove: async (path, options) => {
      await b.remove(path, options);
      calls.push(`remove ${path}`);
    },
  };
  const landed = (match: (path: string, data: string) => boolean) => new Promise<void>((resolve) => waiting.push({ match, resolve }));
  return { backend, calls, landed, release };
}

/**
 * Seals run on a chain of their own, beside the record writes: a seal waits
 * for its batches' records (GUAR-8), not for the records of the batches after
 * them, and a purge's scrub waits for the seals started before it.
 */
describe('seals beside the record writes', () => {
  it('GUAR-8: a seal held at its segment write does not hold back the next batch\'s record write; both batches seal once it lands', async () => {
    const b = await freshBackend();
    const g = gated(b, /^log\/seg-/);
    const s = await openOn(g.backend, { now: () => T0, sync: { log: { rollAfter: 1 } } });
    await s.set('a', { title: 'one' });
    const recorded = g.landed((path, data) => path.startsWith('records/') && data.includes('two'));
    await s.set('b', { title: 'two' });
    // Resolves only if b's records are written while a's seal waits (the test times out otherwise).
    await recorded;
    expect(segmentFiles(b)).toEqual([]);
    g.release();
    await internals(s).committer.idle();
    expect(segmentFiles(b)).toEqual([1, 2]);
    await s.close();
  });

  it('GUAR-20: a purge\'s scrub waits for the seal in flight, so the segment it writes is scrubbed too and no file holds the record after', async () => {
    const b = await freshBackend();
    const g = gated(b, /^log\/seg-/);
    const s = await openOn(g.backend, { now: () => T0, sync: { log: { rollAfter: 1 } } });
    await s.set('a', { title: 'secret' });
    const recorded = g.landed((path, data) => path.startsWith('records/') && !data.includes('secret'));
    const purged = s.purge('a');
    await recorded;
    expect(g.calls.filter((c) => c.startsWith('overwrite'))).toEqual([]);
    g.release();
    await purged;
    await internals(s).committer.idle();
    const sealedAt = g.calls.indexOf('remove log/open/1.json');
    const scrubs = g.calls.map((c, i) => (c.startsWith('overwrite') ? i : -1)).filter((i) => i >= 0);
    expect(sealedAt).toBeGreaterThanOrEqual(0);
    expect(scrubs.length).toBeGreaterThan(0);
    expect(Math.min(...scrubs)).toBeGreaterThan(sealedAt);
    expect([...b.files()].filter(([, text]) => text.includes('secret')).map(([path]) => path)).toEqual([]);
    await s.close();
  });
});

describe('record files a merge takes', () => {
  it.each([[false, true], [true, false]])('LOG-4: with log.lines %s, the merged record files are removed with recycle %s', async (lines, recycle) => {
    const b = await freshBackend();
    const removes: { path: string; recycle?: boolean }[] = [];
    const backend: Backend = { ...b, remove: async (path, options) => { removes.push({ path, recycle: options?.recycle }); await b.remove(path, options); } };
    const s = await openOn(backend, { now: () => T0, sync: { log: { lines } } });
    // A record file for each write (idle() writes the records that would wait for later batches'): small files to merge.
    for (let i = 0; i < 40; i++) {
      await s.insert({ title: `n${i}` });
      await internals(s).committer.idle();
    }
    const merged = removes.filter((r) => r.path.startsWith('records/'));
    expect(merged.length).toBeGreaterThanOrEqual(16);
    expect(merged.every((r) => (r.recycle === true) === recycle)).toBe(true);
    await s.close();
  });
});

import { internals } from '../../src/testing/internals';
import type { SyncomError } from '../../src/errors';
import { openBatches, openOn, segmentFiles, T0 } from '../log/helpers';
import { checkRecovery, copyOf, keyedBackend, makeScript, runOptions, runScript } from './harness';

const recordFiles = (files: Map<string, string>) => [...files.keys()].filter((p) => p.startsWith('records/'));

describe('crash recovery: the log is the commit point', () => {
  it('GUAR-7, LOG-2: a crash between the log append and the record write is repaired by replaying the log on open', async () => {
    const b = await keyedBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: 'kept' });
    await internals(s).committer.idle();
    const before = recordFiles(b.files());
    // The next append lands; the process dies at the record write after it.
    b.crashAt(2);
    await s.update('a', { title: 'logged, not recorded' });
    await s.inc('a', 'n', 1).catch(() => undefined);
    await internals(s).committer.idle();
    const b2 = b.crash('none');
    expect(openBatches(b2)).toEqual([1, 2]);
    expect(recordFiles(b2.files())).toEqual(before);
    expect(b2.files().get(before[0])).not.toContain('logged, not recorded');
    const s2 = await openOn(b2, { now: () => T0 });
    expect(await s2.get('a')).toEqual({ title: 'logged, not recorded' });
    // The next write persists the replayed tail too.
    await s2.set('b', { title: 'next' });
    await internals(s2).committer.idle();
    expect([...b2.files()].some(([p, c]) => p.startsWith('records/') && c.includes('logged, not recorded'))).toBe(true);
    await s2.close();
  });

  it('GUAR-8, GUAR-9: a failed record write leaves its batch in the tail (unsealed) until a later persist lands it', async () => {
    const b = await keyedBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 1 } } });
    const errors: SyncomError[] = [];
    s.on('error', (e) => errors.push(e));
    await s.set('a', { title: 'one' });
    await internals(s).committer.idle();
    expect(segmentFiles(b)).toEqual([1]);
    // The record write of the next batch fails.
    b.failAt(2, { code: 'EIO' });
    await s.update('a', { title: 'two' });
    await internals(s).committer.idle();
    expect(errors.map((e) => e.code)).toEqual(['UNPERSISTED']);
    // The write stands and reads see it, but its batch is not sealed, even with rollAfter 1.
    expect(await s.get('a')).toEqual({ title: 'two' });
    expect(openBatches(b)).toEqual([2]);
    expect(segmentFiles(b)).toEqual([1]);
    // A crash now: the reopen replays the tail.
    const snap = b.crash('none').snapshot();
    const s2 = await openOn(copyOf(snap), { now: () => T0, sync: { log: { rollAfter: 1 } } });
    expect(await s2.get('a')).toEqual({ title: 'two' });
    await s2.close();
    // No crash: the next persist writes both batches' records, and the replayed batch is sealed.
    const b3 = copyOf(snap);
    const s3 = await openOn(b3, { now: () => T0, sync: { log: { rollAfter: 1 } } });
    await s3.inc('a', 'n', 1);
    await internals(s3).committer.idle();
    expect(segmentFiles(b3)).toEqual(expect.arrayContaining([1, 2]));
    expect([...b3.files()].some(([p, c]) => p.startsWith('records/') && c.includes('two'))).toBe(true);
    await s3.close();
    expect(openBatches(b3)).toEqual([]);
    const s4 = await openOn(b3.crash('none'), { now: () => T0 });
    expect(await s4.get('a')).toEqual({ title: 'two', n: 1 });
    expect(internals(s4).log.batches).toEqual([]);
    await s4.close();
  });

  it('LOG-4, GUAR-8: once a failed record write lands, every recorded batch is sealed (no backlog is left in open/)', async () => {
    const b = await keyedBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 1 } } });
    await s.set('a', { title: 'one' });
    await internals(s).committer.idle();
    b.failAt(2, { code: 'EIO' });
    await s.update('a', { title: 'two' });
    await internals(s).committer.idle();
    expect(openBatches(b)).toEqual([2]);
    await s.inc('a', 'n', 1);
    await internals(s).committer.idle();
    // Batches 2 and 3 are both recorded now; with rollAfter 1 neither should wait in open/.
    expect(openBatches(b)).toEqual([]);
    for (let i = 0; i < 3; i++) await s.inc('a', 'n', 1);
    await internals(s).committer.idle();
    expect(openBatches(b)).toEqual([]);
    await s.close();
  });

  it('GUAR-6: a failed append refuses its writes and the next write reuses no logged seq', async () => {
    const b = await keyedBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: 'one' });
    await internals(s).committer.idle();
    b.failAt(1, { code: 'ENOSPC' });
    const failed = await Promise.allSettled([s.update('a', { title: 'x' }), s.inc('a', 'n', 1)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await s.get('a')).toEqual({ title: 'one' });
    await s.update('a', { title: 'two' });
    expect(internals(s).log.read(0).map((e) => e.op.seq)).toEqual([1, 2]);
    await s.close();
    const s2 = await openOn(b.crash('none'), { now: () => T0 });
    await s2.inc('a', 'n', 1);
    expect(internals(s2).log.read(0).map((e) => e.op.seq)).toEqual([1, 2, 3]);
    expect(await s2.get('a')).toEqual({ title: 'two', n: 1 });
    await s2.close();
  });

  it("GUAR-17, LOG-2: with durable, a resolved write survives a power cut ('lost'); without it, the unsynced batch may not", async () => {
    for (const durable of [true, false]) {
      const b = await keyedBackend();
      const s = await openOn(b, { now: () => T0, durable });
      await s.set('a', { title: 'one' });
      await Promise.all([s.update('a', { title: 'two' }), s.inc('a', 'n', 3)]);
      await internals(s).committer.idle();
      const s2 = await openOn(b.crash('lost'), { now: () => T0, durable });
      if (durable) expect(await s2.get('a')).toEqual({ title: 'two', n: 3 });
      else expect(await s2.get('a')).toBeUndefined();
      // Either way the reopened node goes on from what its log holds.
      await s2.set('b', { title: 'b' });
      expect(internals(s2).log.read(0).map((e) => e.op.seq)).toEqual(durable ? [1, 2, 3, 4] : [1]);
      await s2.close();
    }
  });

  it('GUAR-7 (the sweep oracle): a batch lost after it resolved is reported by the recovery check', async () => {
    const script = makeScript(11, 12);
    const options = runOptions(true);
    const b = await keyedBackend();
    const run = await runScript(b, script, options);
    await expect(checkRecovery(b.crash('none'), run, options, 'intact')).resolves.toBeDefined();
    // Take the sealed log away (as if the appends never landed): the check must fail.
    const snap = b.crash('none').snapshot();
    for (const p of Object.keys(snap.files)) if (p.startsWith('log/seg-') || p.startsWith('log/open/')) delete snap.files[p];
    for (const p of Object.keys(snap.files)) if (p === 'log/index.json') delete snap.files[p];
    await expect(checkRecovery(copyOf(snap), run, options, 'log lost')).rejects.toThrow(/resolved write lost|the log is not|log\/index\.json is missing/);
  });
});

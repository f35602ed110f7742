import { internals } from '../../src/testing/internals';
import { freshBackend, openBatches, openOn, recording, T0 } from '../log/helpers';

/**
 * The record files follow the log (docs/guarantees.md, "Record files follow
 * the log"): a batch nothing waits on (no purge, no afterPersist) has its
 * records written with a later batch's, once rollAfter batches wait, so
 * awaited writes one by one share a record file instead of paying one each.
 * The log is the commit point: a crash with records waiting loses nothing,
 * the reopen replays the unsealed tail onto the records.
 */
const options = { now: () => T0, durable: true, sync: { log: { rollAfter: 8 } } };

describe('record files written for several batches at once', () => {
  it('GUAR-8: 20 writes awaited one by one write their records a few times, not 20, and each batch is sealed once its records are written', async () => {
    const disk = await freshBackend();
    const { backend, calls } = recording(disk);
    const s = await openOn(backend, options);
    for (let i = 0; i < 20; i++) await s.set(`r${i}`, { i });
    await internals(s).committer.idle();
    const recordWrites = calls.filter((c) => c.op === 'write' && c.path.startsWith('records/') && c.data?.includes('"r'));
    expect(recordWrites.length).toBeLessThanOrEqual(4);
    expect(recordWrites.length).toBeGreaterThan(0);
    // Every record is in a record file now (idle() wrote what waited), and every batch recorded is sealed or waits for rollAfter more.
    const text = recordWrites.map((c) => c.data).join('');
    for (let i = 0; i < 20; i++) expect(text).toContain(`"r${i}"`);
    expect(openBatches(disk).length).toBeLessThan(8);
    await s.close();
  });

  it('GUAR-7 LOG-2: a power cut while records wait loses no acknowledged write: the reopen replays the tail', async () => {
    const b = await freshBackend();
    const s = await openOn(b, options);
    for (let i = 0; i < 7; i++) await s.set(`r${i}`, { i });
    // No record file holds them yet: they wait for the eighth batch.
    expect([...b.files()].filter(([p, t]) => p.startsWith('records/') && t.includes('"r0"'))).toEqual([]);
    const cut = b.crash('lost');
    const again = await openOn(cut, options);
    for (let i = 0; i < 7; i++) expect(await again.get(`r${i}`)).toEqual({ i });
    await again.close();
  });

  it('GUAR-8: a purge does not wait: its batch and every batch waiting before it are recorded, and the purge scrubbed, before purge() resolves', async () => {
    const b = await freshBackend();
    const s = await openOn(b, options);
    await s.set('x', { title: 'SECRET-X' });
    await s.set('y', { title: 'kept' });
    await s.purge('x');
    expect([...b.files()].filter(([, t]) => t.includes('SECRET-X')).map(([p]) => p)).toEqual([]);
    expect([...b.files()].some(([p, t]) => p.startsWith('records/') && t.includes('"kept"'))).toBe(true);
    await s.close();
  });
});

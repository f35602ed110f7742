import { createMemoryBackend } from '../../src/backend';
import { open, type SyncomError } from '../../src';
import { readIndex } from '../../src/log/files';
import { internals } from '../../src/testing/internals';

/**
 * A seal writes its segment, then index.json, then lets go of the batch
 * files. Once index.json lists the segment it is sealed, whatever comes
 * after: a removal that failed left the batches open, the next seal listed
 * the segment a second time, and every later open refused the store
 * (STORE_DAMAGED) with every op on disk.
 */
describe('a seal whose files cannot be removed', () => {
  it('GUAR-9 LOG-4: is reported, lists its segment once, and the store reopens with every record; the files go at a later seal', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'p', backend, sync: { log: { rollAfter: 2 } } });
    const errors: SyncomError[] = [];
    s.on('error', (e) => errors.push(e));
    backend.failAt(1, { code: 'EIO', persistent: true, ops: ['remove'] });
    const ids: string[] = [];
    // Awaited one at a time: a batch each, two to a segment.
    for (let i = 0; i < 6; i++) ids.push(await s.insert({ i }));
    await internals(s).committer.idle();
    backend.clearFaults();
    expect(errors.map((e) => e.code)).toContain('IO_ERROR');
    for (let i = 6; i < 8; i++) ids.push(await s.insert({ i }));
    await s.close();
    const read = readIndex((await backend.read('log/index.json')) as string);
    if (!('index' in read)) throw new Error(read.fault);
    const froms = read.index.segments.map((x) => x.from);
    expect(new Set(froms).size).toBe(froms.length);
    expect((await backend.list('log/open')).filter((f) => !f.startsWith('.'))).toEqual([]);
    const again = await open({ path: 'p', backend });
    expect((await again.list()).map((r) => r.id).sort()).toEqual([...ids].sort());
    await again.close();
  });
});

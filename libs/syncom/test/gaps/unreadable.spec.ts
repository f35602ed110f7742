import { internals } from '../../src/testing/internals';
import { createMemoryBackend, open, type MemoryBackend, type Storage, type SyncomError } from '../../src';

/** The first `error` event of a storage. */
function firstError(s: Storage): Promise<SyncomError> {
  return new Promise((resolve) => {
    const off = s.on('error', (e) => { off(); resolve(e); });
  });
}

/** A storage with three records, each written in a batch of its own (records/1..3.json, log/open/1..3.json). */
async function threeBatches(backend: MemoryBackend) {
  const s = await open({ path: 'p', backend });
  const ids: string[] = [];
  // idle() after each: records that would wait for a later batch's are written, a file each.
  for (let i = 0; i < 3; i++) {
    ids.push(await s.insert({ i }));
    await internals(s).committer.idle();
  }
  return { s, ids };
}

describe('OP_UNREADABLE', () => {
  it('LIFE-19: a record file holding garbage is reported after open as an error with code OP_UNREADABLE; the rest of the store opens', async () => {
    const backend = createMemoryBackend();
    const { s, ids } = await threeBatches(backend);
    await s.close();
    expect(backend.files().has('records/2.json')).toBe(true);
    const damaged = createMemoryBackend({ from: backend.snapshot(), files: { 'records/2.json': '[{"id": garbage' } });
    const again = await open({ path: 'p', backend: damaged });
    const error = await firstError(again);
    expect(error).toMatchObject({ code: 'OP_UNREADABLE', file: 'records/2.json' });
    expect(await again.get(ids[0])).toEqual({ i: 0 });
    expect(await again.get(ids[2])).toEqual({ i: 2 });
    expect(again.id).toBe(s.id);
    // The store works on: a write lands and is read back.
    const id = await again.insert({ after: true });
    expect(await again.get(id)).toEqual({ after: true });
    await again.close();
  });

  it('LIFE-19: a log file holding garbage is reported after open as an error with code OP_UNREADABLE; the other batches and the records open', async () => {
    // One file per batch, as a backend without append writes them (a damaged line of an appended file: test/log/open-lines.spec.ts).
    const backend = createMemoryBackend({ append: false });
    const { s, ids } = await threeBatches(backend);
    // As after a crash: the three batches are still open files; the middle one is damaged.
    const damaged = createMemoryBackend({ from: backend.snapshot(), files: { 'log/open/2.json': '\u0000\u0000garbage' } });
    await s.close();
    const again = await open({ path: 'p', backend: damaged });
    const error = await firstError(again);
    expect(error).toMatchObject({ code: 'OP_UNREADABLE', file: 'log/open/2.json' });
    expect(internals(again).log.read(0).map((e) => e.op.id)).toEqual([ids[0], ids[2]]);
    for (const [i, id] of ids.entries()) expect(await again.get(id)).toEqual({ i });
    await again.close();
  });
});

import { createMemoryBackend } from '../../src/backend';
import { open, type SyncomError } from '../../src';

/**
 * No swallowed failure in the commit pipeline (GUAR-9): when a log append
 * fails, the write rejects (IO_ERROR); when removing the file the failed
 * append started fails too, the storage says so on its error event.
 */
describe('a failed append whose batch cannot be discarded', () => {
  it('GUAR-9: the write rejects with IO_ERROR and the failed discard is reported on storage.on(error)', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'discard', backend });
    const errors: SyncomError[] = [];
    s.on('error', (e) => errors.push(e));
    backend.failAt(1, { code: 'ENOSPC', persistent: true, ops: ['write', 'remove'] });
    await expect(s.insert({ x: 1 })).rejects.toMatchObject({ code: 'IO_ERROR' });
    // The failed discard, then the failed append itself (reported once per append, whoever made the writes).
    expect(errors.map((e) => [e.code, /not discarded/.test(e.message)])).toEqual([['IO_ERROR', true], ['IO_ERROR', false]]);
    backend.clearFaults();
    await s.close();
  });

  it('GUAR-9: the refused write stays refused after close() and a reopen: the batch file is removed at close() (it was replayed by the next open)', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'discard', backend, durable: true });
    const kept = await s.insert({ x: 0 });
    // The append's file is written whole, its fsync fails, and so does its removal.
    backend.failAt(1, { code: 'EIO', persistent: true, ops: ['fsync', 'remove'] });
    await expect(s.insert({ x: 1 })).rejects.toMatchObject({ code: 'IO_ERROR' });
    backend.clearFaults();
    await s.close();
    const again = await open({ path: 'discard', backend });
    expect((await again.list()).map((r) => r.id)).toEqual([kept]);
    await again.close();
  });
});

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
});

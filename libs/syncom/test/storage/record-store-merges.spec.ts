import fc from 'fast-check';
import { createMemoryBackend } from '../../src';
import type { Entry } from '../../src/crdt';
import { RecordStore } from '../../src/storage/records';

const runs = (base: number) => ({ numRuns: Number(process.env.FC_RUNS ?? base) });
const entry = (id: string, n: number): Entry => ({ id, latest: [n, 'w'], fields: { n: { k: 'r', s: [n, 'w'], val: n } } });

describe('record files through many merges', () => {
  it('GUAR-7 LOG-1: batches of new and rewritten ids, merged 16 files at a time over several levels, load back as the latest state of every id, each file holding an id once', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.array(fc.nat(60), { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 70 }), async (batches) => {
      const backend = createMemoryBackend();
      const onError = (e: Error) => { throw e; };
      const { store } = await RecordStore.load({ backend, durable: false, onError });
      const current = new Map<string, Entry>();
      let stamp = 0;
      for (const ids of batches) {
        const changed = [...new Set(ids)].map((i) => entry(`r${i}`, ++stamp));
        for (const e of changed) current.set(e.id, e);
        await store.write(changed, current);
      }
      const files = [...backend.files()].filter(([p]) => p.startsWith('records/'));
      for (const [, text] of files) {
        const ids = (JSON.parse(text) as Entry[]).map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
      }
      const again = await RecordStore.load({ backend, durable: false, onError });
      expect(again.entries).toEqual(current);
    }), runs(40));
  });
});

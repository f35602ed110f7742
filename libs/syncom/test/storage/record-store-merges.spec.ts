import fc from 'fast-check';
import { createMemoryBackend } from '../../src';
import { type Entry, keyedGet } from '../../src/crdt';
import { RecordStore } from '../../src/storage/records';
import { MERGE_CAP, nextMerge } from '../../src/storage/record-merges';

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

describe('record files: what a merge reads and lets go of', () => {
  const onError = (e: Error) => { throw e; };
  const val = (e: Entry) => (keyedGet(e.fields, 'n') as { val: unknown }).val;
  const withVal = (id: string, n: number, v: unknown): Entry => ({ id, latest: [n, 'w'], fields: { n: { k: 'r', s: [n, 'w'], val: v } } });

  it.each([true, false])('GUAR-7: a merge of small files takes the texts it wrote without reading them back, and hands the merged files back with recycle %s (off with log.lines)', async (recycle) => {
    const backend = createMemoryBackend();
    const { store } = await RecordStore.load({ backend, durable: false, onError, recycle });
    const read = jest.spyOn(backend, 'read');
    const remove = jest.spyOn(backend, 'remove');
    const current = new Map<string, Entry>();
    for (let i = 0; i < 16; i++) {
      const e = entry(`r${i}`, i + 1);
      current.set(e.id, e);
      await store.write([e], current);
    }
    expect(read).not.toHaveBeenCalled();
    expect(remove).toHaveBeenCalledTimes(16);
    for (const call of remove.mock.calls) expect(call[1]).toEqual({ recycle });
    expect([...backend.files().keys()].filter((p) => p.startsWith('records/'))).toHaveLength(1);
    expect((await RecordStore.load({ backend, durable: false, onError })).entries).toEqual(current);
  });

  it('GUAR-20: a scrub replaces the text a later merge takes: the merged file holds the scrubbed state, not the old one', async () => {
    const backend = createMemoryBackend();
    const { store } = await RecordStore.load({ backend, durable: false, onError });
    const current = new Map<string, Entry>();
    for (let i = 0; i < 15; i++) {
      const e = withVal(`r${i}`, i + 1, i === 3 ? 'secret' : i);
      current.set(e.id, e);
      await store.write([e], current);
    }
    // r3's state moves on (a purge marker would too) and its file is scrubbed; the sixteenth write merges.
    current.set('r3', withVal('r3', 99, 'scrubbed'));
    await store.scrub(['r3'], current);
    const last = entry('r15', 100);
    current.set(last.id, last);
    await store.write([last], current);
    const texts = [...backend.files()].filter(([p]) => p.startsWith('records/')).map(([, t]) => t);
    expect(texts).toHaveLength(1);
    expect(texts[0]).not.toContain('secret');
    const again = await RecordStore.load({ backend, durable: false, onError });
    expect(val(again.entries.get('r3') as Entry)).toBe('scrubbed');
  });
});

describe('record files: choosing the next merge', () => {
  it('GUAR-7: among 20,000 files of one size class (a copied or old store) copies no list per file', () => {
    const files = Array.from({ length: 20_000 }, (_, i) => ({ n: i, ids: ['x'], weight: 1, stale: 0 }));
    // Each file's class list was copied to add it: quadratic, 18 s to open such a store read-only (syncom info).
    let copied = 0;
    const original = Map.prototype.set;
    const set = jest.spyOn(Map.prototype, 'set').mockImplementation(function (this: Map<unknown, unknown>, k: unknown, v: unknown) {
      if (Array.isArray(v)) copied += v.length;
      return original.call(this, k, v);
    });
    const due = nextMerge(files);
    set.mockRestore();
    expect(due?.length).toBe(MERGE_CAP);
    expect(copied).toBeLessThan(files.length);
  });
});

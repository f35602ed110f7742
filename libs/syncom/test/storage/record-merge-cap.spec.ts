import { createMemoryBackend } from '../../src';
import { applyOp, type Entry, readEntry } from '../../src/crdt';
import type { Op } from '../../src/op/types';
import { MERGE_CAP, RecordStore } from '../../src/storage/records';

const onError = (e: Error) => { throw e; };

/** Characters of every record file, and of the largest. */
function recordBytes(backend: ReturnType<typeof createMemoryBackend>): { all: number; largest: number; files: number } {
  const sizes = [...backend.files()].filter(([p]) => p.startsWith('records/')).map(([, t]) => t.length);
  return { all: sizes.reduce((a, b) => a + b, 0), largest: Math.max(...sizes), files: sizes.length };
}

describe('record files: merges stay under a cap, and what the cap leaves unmerged is rewritten once mostly stale', () => {
  it(`GUAR-7 GUAR-20: 40,000 records in batches of 100, then each updated three times: no merged file past ${MERGE_CAP} entries or 1 MB, the files within twice the records' text, and a reload reads every record`, async () => {
    const backend = createMemoryBackend();
    const { store } = await RecordStore.load({ backend, durable: false, onError });
    const current = new Map<string, Entry>();
    let seq = 0;
    const write = async (from: number, round: number) => {
      const changed: Entry[] = [];
      for (let i = from; i < from + 100; i++) {
        const id = `r${i}`;
        const e = applyOp(current.get(id), { origin: 'A', seq: ++seq, ts: seq, id, type: 'write', data: { title: `note ${i} round ${round}`, n: i } } as Op).entry as Entry;
        current.set(id, e);
        changed.push(e);
      }
      await store.write(changed, current);
    };
    for (let round = 0; round < 4; round++) for (let i = 0; i < 40_000; i += 100) await write(i, round);
    const live = JSON.stringify([...current.values()]).length;
    const { all, largest, files } = recordBytes(backend);
    // A file of MERGE_CAP entries of about 90 characters each: about 90 KB (the 1 MB bound is for larger records).
    expect(largest).toBeLessThan(MERGE_CAP * 200);
    // A file more stale than live is rewritten: without that, the three rounds of updates left about 3.9 times the text.
    expect(all).toBeLessThan(live * 2);
    expect(files).toBeGreaterThan(40);
    const again = await RecordStore.load({ backend, durable: false, onError });
    expect(again.entries.size).toBe(40_000);
    for (const id of ['r0', 'r20000', 'r39999']) expect(readEntry(again.entries.get(id) as Entry)).toEqual(readEntry(current.get(id) as Entry));
  }, 60_000);
});

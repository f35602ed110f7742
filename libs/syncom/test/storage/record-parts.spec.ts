import fc from 'fast-check';
import { createMemoryBackend } from '../../src';
import { applyOp, type Entry, keyedGet, readEntry } from '../../src/crdt';
import { tagList } from '../../src/crdt/tags';
import type { Op } from '../../src/op/types';
import { entryDigest } from '../../src/reconcile';
import { type RecordCipher, RecordStore } from '../../src/storage/records';
import { generateSealingKeys } from '../../src/op';
import { createRecordCipher } from '../../src/sealed/record-cipher';
import { createPrivateKey, createPublicKey } from 'node:crypto';

const RUNS = Number(process.env.FC_RUNS ?? 100);
const onError = (e: Error) => { throw e; };

/** Ids of records grown past 32 elements (written as parts after their first write), and of small ones (written as parts while their text is long). */
const LARGE = ['L0', 'L1'];
const SMALL_IDS = ['s0', 's1', 's2', 's3', 's4'];

type Step =
  | { kind: 'batch'; changes: { id: string; what: 'add' | 'readd' | 'inc' | 'write' | 'remove' | 'long'; n: number }[] }
  | { kind: 'reload' }
  | { kind: 'purge'; id: string };

const change = fc.record({
  id: fc.constantFrom(...LARGE, ...LARGE, ...SMALL_IDS),
  what: fc.constantFrom<'add' | 'readd' | 'inc' | 'write' | 'remove' | 'long'>('add', 'add', 'readd', 'inc', 'write', 'remove', 'long'),
  n: fc.integer({ min: 1, max: 60 }),
});
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant<'batch'>('batch'), changes: fc.array(change, { minLength: 1, maxLength: 4 }) }) },
  { weight: 2, arbitrary: fc.constant<Step>({ kind: 'reload' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant<'purge'>('purge'), id: fc.constantFrom(...LARGE, ...SMALL_IDS) }) },
);

/** Ids sealed in the sealed form of the model: a large record and a small one. */
const SEALED = new Set(['L1', 's1']);

/** The record cipher of a node holding SEALED sealed (GUAR-19). */
async function sealingCipher(): Promise<RecordCipher> {
  const { publicPem, privatePem } = await generateSealingKeys();
  return createRecordCipher({ sealPublic: createPublicKey(publicPem), sealPrivate: createPrivateKey(privatePem) }, (id) => SEALED.has(id));
}

describe('record files holding parts of large records (model-based)', () => {
  it.each([false, true])('GUAR-7 GUAR-19 GUAR-20 LOG-1 KIND-5 RESET-1: batches of ops on large and small records, merges, purges and reloads: every load gives back each record as it stands (sealed %s)', async (sealed) => {
    const cipher = sealed ? await sealingCipher() : undefined;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 40, maxLength: 140 }), async (steps) => {
        const backend = createMemoryBackend();
        const load = () => RecordStore.load({ backend, durable: false, onError, ...(cipher && { cipher }) });
        let store = (await load()).store;
        const current = new Map<string, Entry>();
        let seq = 0;
        const apply = (id: string, body: Partial<Op>) => {
          seq++;
          const entry = applyOp(current.get(id), { origin: 'A', seq, ts: seq, id, ...body } as Op).entry;
          if (entry) current.set(id, entry);
        };
        /** The add tags element `x` of id's set holds now: what a remove of it names. */
        const addTags = (id: string, x: string): string[] => {
          const f = keyedGet(current.get(id)?.fields ?? {}, 'tags');
          const el = f?.k === 's' ? keyedGet(f.el, JSON.stringify(x)) : undefined;
          return el ? [...tagList(el.add)] : [];
        };
        const grow = (id: string, n: number, from: number) => apply(id, { type: 'add', key: 'tags', value: Array.from({ length: n }, (_, i) => `e${from + i}`) });
        // The large records start past 32 elements (enough for dozens of parts before a whole write), written whole once.
        for (const id of LARGE) grow(id, 300, 0);
        await store.write(LARGE.map((id) => current.get(id) as Entry), current);
        const check = async () => {
          const { entries } = await load();
          // A sealed record, whole or a part, is a box in every file: nothing of it in clear.
          for (const [p, text] of backend.files()) {
            if (!p.startsWith('records/') || !cipher) continue;
            for (const x of JSON.parse(text) as { id: string }[]) if (SEALED.has(x.id)) expect(Object.keys(x).sort()).toEqual(['id', 'sealed']);
          }
          expect([...entries.keys()].sort()).toEqual([...current.keys()].sort());
          for (const [id, e] of current) {
            const got = entries.get(id) as Entry;
            expect(readEntry(got)).toEqual(readEntry(e));
            expect(entryDigest(got)).toBe(entryDigest(e));
          }
        };
        for (const s of steps) {
          if (s.kind === 'reload') {
            await check();
            store = (await load()).store;
            continue;
          }
          if (s.kind === 'purge') {
            if (!current.has(s.id)) continue;
            apply(s.id, { type: 'purge' });
            await store.scrub([s.id], current);
            continue;
          }
          const ids = new Set<string>();
          for (const c of s.changes) {
            ids.add(c.id);
            if (c.what === 'add') grow(c.id, c.n % 3 === 0 ? 40 : 1, seq * 100);
            else if (c.what === 'readd') apply(c.id, { type: 'add', key: 'tags', value: [`e${c.n % 4}`] });
            else if (c.what === 'inc') apply(c.id, { type: 'inc', key: 'n', value: c.n, scope: `s${c.n}` });
            else if (c.what === 'remove') apply(c.id, { type: 'remove', key: 'tags', value: [[`e${c.n % 4}`, addTags(c.id, `e${c.n % 4}`).slice(0, 2)]] });
            // A long value in one of 6 fields: a small record's text passes 16 KB (written as parts from then on) and may fall back under it.
            else if (c.what === 'long') apply(c.id, { type: 'set', data: { [`big${c.n % 6}`]: c.n % 5 === 0 ? c.n : `${c.n}`.repeat(700 * (c.n % 7)) } });
            else apply(c.id, { type: 'write', data: { v: c.n } });
          }
          await store.write([...ids].map((id) => current.get(id)).filter((e): e is Entry => !!e), current);
        }
        await check();
      }),
      // Sealed: each file written boxes its sealed entries under a new content key, and each load opens them (RSA).
      { numRuns: sealed ? Math.ceil(RUNS / 3) : RUNS },
    );
  });

  it('GUAR-7 KIND-3: 5,000 incs of a counter of 100 slots, each its own batch, leave record files within a few times the counter\'s own text (parts a whole write superseded are dropped), and load back', async () => {
    const backend = createMemoryBackend();
    const { store } = await RecordStore.load({ backend, durable: false, onError });
    const current = new Map<string, Entry>();
    const seqs = new Map<string, number>();
    let e: Entry | undefined;
    const inc = (origin: string, ts: number) => {
      const seq = (seqs.get(origin) ?? 0) + 1;
      seqs.set(origin, seq);
      e = applyOp(e, { origin, seq, ts, id: 'c', type: 'inc', key: 'n', value: 1 } as Op).entry as Entry;
      current.set('c', e);
    };
    for (let i = 0; i < 100; i++) inc(`o${i}`, i + 1);
    await store.write([e as Entry], current);
    for (let i = 0; i < 5000; i++) {
      inc(`o${i % 100}`, 1000 + i);
      await store.write([e as Entry], current);
    }
    const bytes = [...backend.files()].filter(([p]) => p.startsWith('records/')).reduce((n, [, t]) => n + t.length, 0);
    // The counter's text stays the same size (1.7 KB); its 5,000 parts (about 100 bytes each) are not all kept:
    // 11 KB of files here, 40 KB when a whole write left the files of the parts it superseded as they were.
    expect(bytes).toBeLessThan(10 * JSON.stringify(e).length);
    const { entries } = await RecordStore.load({ backend, durable: false, onError });
    expect(entryDigest(entries.get('c') as Entry)).toBe(entryDigest(e as Entry));
    expect(readEntry(entries.get('c') as Entry)).toEqual({ n: 5100 });
  });

  it('GUAR-7: a merged file holding a record both whole and as a part, reloaded, keeps the whole entry through its next merge (a case the model found)', async () => {
    const backend = createMemoryBackend();
    let { store } = await RecordStore.load({ backend, durable: false, onError });
    const current = new Map<string, Entry>();
    let seq = 0;
    const write = async (id: string, body: Partial<Op>) => {
      seq++;
      current.set(id, applyOp(current.get(id), { origin: 'A', seq, ts: seq, id, ...body } as Op).entry as Entry);
    };
    const tags = (n: number, from: number) => ({ type: 'add', key: 'tags', value: Array.from({ length: n }, (_, i) => `e${from + i}`) }) as Partial<Op>;
    await write('big', tags(40, 0));
    await store.write([current.get('big') as Entry], current);
    await write('big', tags(1, 100));
    await write('z', { type: 'write', data: { n: 0 } });
    await store.write([current.get('big') as Entry, current.get('z') as Entry], current);
    // Fourteen more files of one small record: the sixteen merge into one holding big whole and as a part.
    for (let i = 0; i < 14; i++) {
      await write('f', { type: 'write', data: { n: i } });
      await store.write([current.get('f') as Entry], current);
    }
    store = (await RecordStore.load({ backend, durable: false, onError })).store;
    // z written again: the merged file goes stale, and its next merge must keep big whole.
    for (let i = 0; i < 15; i++) {
      await write('z', { type: 'write', data: { n: i + 1 } });
      await store.write([current.get('z') as Entry], current);
    }
    const { entries } = await RecordStore.load({ backend, durable: false, onError });
    expect((readEntry(entries.get('big') as Entry).tags as unknown[]).length).toBe(41);
    expect(entryDigest(entries.get('big') as Entry)).toBe(entryDigest(current.get('big') as Entry));
  });
});

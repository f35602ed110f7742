import fc from 'fast-check';
import { isEntry } from '../../src/crdt';
import { readNdjson, readSnapshotPage } from '../../src/sync/protocol/snapshot-page';
import { describeError, fuzzSync, inputsOf, type Outcome, RUNS, show } from './fuzz';
import { makeSamples, pieces, type Samples } from './samples';

let samples: Samples;
beforeAll(async () => {
  samples = await makeSamples();
});

/** A page read's outcome: a typed refusal, or a page the dialer can use as it is. */
function judgeRead(o: Outcome, entriesOf: (v: Record<string, unknown>) => unknown): { fault: string | null; code?: string } {
  if (o.threw) return { fault: `threw ${describeError(o.error)}` };
  const r = o.value as { ok: boolean; code?: unknown; reason?: unknown } & Record<string, unknown>;
  if (r?.ok === false) return r.code === 'PAGE_FAILED' && typeof r.reason === 'string' ? { fault: null, code: 'PAGE_FAILED' } : { fault: 'an untyped refusal' };
  if (r?.ok !== true) return { fault: 'neither a page nor a refusal' };
  const entries = entriesOf(r);
  if (entries !== undefined && !(Array.isArray(entries) && entries.every((e) => isEntry(e, (e as { id: string }).id)))) return { fault: 'a page with an entry that is none' };
  return { fault: null };
}

/** Entries as NDJSON text: what a host streams (a value JSON cannot carry stands as a line of its own). */
const ndjson = (list: unknown): string => (Array.isArray(list) ? list : [list]).map((e) => show(e)).join('\n') + '\n';

describe('fuzz: snapshot pages, inline and NDJSON, refuse with PAGE_FAILED, never throw (PROTO-7, BOOT-2, HOST-6)', () => {
  it(`readSnapshotPage: ${RUNS} generated and mutated pages of a real host (PROTO-7, BOOT-2, BOOT-5)`, () => {
    const pages = [...samples.pages, { token: 'tok', next: 40, total: 80, count: 0, stream: 'abc' }, { token: 'tok', next: null, total: 3, count: 2, entries: samples.entries.slice(0, 2) }];
    const t = fuzzSync(fc.tuple(inputsOf(pages), fc.constantFrom(0, 20)), (x) => {
      const [page, offset] = x as [unknown, number];
      return readSnapshotPage(page, offset);
    }, (o, x) => {
      const j = judgeRead(o, (r) => (r.page as { entries?: unknown }).entries);
      if (j.fault || j.code) return j;
      const p = (o as { value: { page: { next: unknown } } }).value.page;
      const offset = (x as [unknown, number])[1];
      return p.next === null || (Number.isSafeInteger(p.next) && (p.next as number) > offset) ? j : { fault: 'a next that does not move on' };
    });
    expect(t.taken).toBeGreaterThan(RUNS / 20);
    expect(t.refused).toBeGreaterThan(RUNS / 4);
  });

  it(`readNdjson: ${RUNS} generated, mutated and cut NDJSON streams (HOST-6)`, () => {
    const lists = pieces(samples.entries, 3);
    const text = ndjson(lists[0]);
    const cut = fc.nat({ max: text.length }).map((n) => text.slice(0, n));
    const spliced = fc.tuple(fc.nat({ max: text.length }), fc.string({ maxLength: 6, unit: 'binary' })).map(([n, s]) => text.slice(0, n) + s + text.slice(n));
    const arb = fc.oneof(inputsOf(lists).map(ndjson), cut, spliced, fc.string({ unit: 'binary' }), inputsOf([text]));
    const t = fuzzSync(arb, (x) => readNdjson(x as string), (o) => judgeRead(o, (r) => r.entries));
    expect(t.taken).toBeGreaterThan(RUNS / 50);
    expect(t.refused).toBeGreaterThan(RUNS / 4);
  });
});

import fc from 'fast-check';
import type { Entry } from '../../src/crdt';
import { jsonBytesBound } from '../../src/sync/host/json-bound';
import { closeAll, hub, node } from './helpers';
import { greet } from './scenario-helpers';

const runs = (base: number) => ({ numRuns: Number(process.env.FC_RUNS ?? base) });
const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** Where exact sizes cut `entries` into pages of at most `size` and `maxBytes` (a record above it alone): the rule of HOST-6. */
function exactCuts(entries: readonly Entry[], size: number, maxBytes: number): number[] {
  const counts: number[] = [];
  let i = 0;
  while (i < entries.length) {
    let bytes = 1;
    let n = 0;
    for (; i < entries.length && n < size; i++, n++) {
      const b = utf8(JSON.stringify(entries[i])) + 1;
      if (n > 0 && bytes + b > maxBytes) break;
      bytes += b;
    }
    counts.push(n);
  }
  return counts;
}

describe('snapshot pages sized by bounds', () => {
  it('jsonBytesBound is never below the UTF-8 bytes of JSON.stringify (escapes, astral and lone surrogates, nesting)', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
      for (const v of [value, text, { [text]: value }, [text, value]]) {
        expect(jsonBytesBound(v)).toBeGreaterThanOrEqual(utf8(JSON.stringify(v)));
      }
    }), runs(300));
    for (const odd of ['\u0000\u001f"\\', '\ud800', '😀'.repeat(3), 'é']) expect(jsonBytesBound(odd)).toBeGreaterThanOrEqual(utf8(JSON.stringify(odd)));
  });

  it('jsonBytesBound gives up (Infinity) on what JSON writes otherwise: undefined members, a toJSON, deep nesting', () => {
    expect(jsonBytesBound({ a: undefined })).toBe(Infinity);
    expect(jsonBytesBound({ at: new Date(0) })).toBe(Infinity);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(jsonBytesBound(deep)).toBe(Infinity);
  });

  it('HOST-6 BOOT-2 BOOT-3: pages cut where exact sizes cut them, at every pageBytes, with records of mixed sizes', async () => {
    const h = await hub({ pageSize: 7 });
    const p = await node();
    for (let i = 0; i < 40; i++) await h.s.insert({ i, text: 'é'.repeat((i * 37) % 90), note: i % 5 === 0 ? '\u0000"'.repeat(i) : 'x' });
    const sorted = [...h.s.replica.records.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const pageBytes of [1, 150, 400, 900, 2_000, 100_000]) {
      const unit = h.s.sync.unit({ access: 'public', pageSize: 7, pageBytes });
      const ctx = await greet(unit, p, ['*'], {});
      const counts: number[] = [];
      let args: { token?: string; offset?: number } = {};
      for (;;) {
        const page = (await unit.call('snapshot', args, ctx)) as { token: string; next: number | null; entries: Entry[] };
        counts.push(page.entries.length);
        if (page.next === null) break;
        args = { token: page.token, offset: page.next };
      }
      expect(counts).toEqual(exactCuts(sorted, 7, pageBytes));
    }
    await closeAll(h.s, p);
  });
});

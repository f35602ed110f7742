import fc from 'fast-check';
import { createMemoryBackend, open } from '../../src';
import { copyJson } from '../../src/storage/copy-json';

/** Every object and array reachable from `v`, in walk order. */
function containers(v: unknown, out: object[] = []): object[] {
  if (typeof v !== 'object' || v === null) return out;
  out.push(v);
  for (const x of Object.values(v)) containers(x, out);
  return out;
}

describe('copyJson: what reads and change listeners are handed', () => {
  it('LIFE-20: a JSON value is copied as structuredClone copies it (same values, keys in the same order, -0 kept), sharing no object with the source', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      const copy = copyJson(v);
      expect(copy).toStrictEqual(structuredClone(v));
      expect(JSON.stringify(copy)).toBe(JSON.stringify(v));
      const mine = new Set(containers(v));
      expect(containers(copy).some((o) => mine.has(o))).toBe(false);
    }), { numRuns: 1000 });
    expect(Object.is(copyJson({ n: -0 }).n, -0)).toBe(true);
  });

  it('LIFE-20: a field named __proto__ stays an own field of the copy, as JSON.parse made it; the prototype is not set', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":[{"__proto__":1}]}') as Record<string, unknown>;
    const copy = copyJson(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: true });
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys((copy.a as object[])[0])).toEqual(['__proto__']);
  });

  it('LIFE-20: a value no JSON parse makes (a Date, a Map) is copied by structuredClone, not flattened', () => {
    const source = { when: new Date(5), map: new Map([['k', { v: 1 }]]), list: [new Uint8Array([1, 2])] };
    const copy = copyJson(source);
    expect(copy).toStrictEqual(structuredClone(source));
    expect(copy.when).not.toBe(source.when);
    expect(copy.map.get('k')).not.toBe(source.map.get('k'));
  });

  it('LIFE-20: get(), list(), record() and a change listener hand out copies: editing them changes neither the record nor the next reader', async () => {
    const s = await open({ path: 'copies', backend: createMemoryBackend() });
    try {
      const seen: unknown[] = [];
      s.on('change', (op) => {
        (op.data as { nested: { y: unknown } }).nested.y = 'edited by a listener';
        seen.push(op.data);
      });
      await s.set('r', { nested: { y: 1 }, list: [{ z: 2 }] });
      const got = await s.get('r') as { nested: { y: unknown }; list: { z: unknown }[] };
      got.nested.y = 'edited';
      got.list[0].z = 'edited';
      const [listed] = await s.list();
      (listed.data.nested as { y: unknown }).y = 'edited too';
      const handle = await s.record('r');
      (handle?.data.list as { z: unknown }[])[0].z = 'edited as well';
      expect(await s.get('r')).toEqual({ list: [{ z: 2 }], nested: { y: 1 } });
      expect(seen).toEqual([{ list: [{ z: 2 }], nested: { y: 'edited by a listener' } }]);
    } finally {
      await s.close();
    }
  });
});

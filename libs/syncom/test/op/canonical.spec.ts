import fc from 'fast-check';
import { canonicalJson } from '../../src/op';

/** The same value with every object's keys in another order (seeded). */
function reorder(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => reorder(item, seed + i));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).map(([k, v], i) => [k, reorder(v, seed + i)] as const);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = (seed * 31 + i * 17) % (i + 1);
    [entries[i], entries[j]] = [entries[j], entries[i]];
  }
  // fromEntries defines own properties, so a "__proto__" key stays a key.
  return Object.fromEntries(entries);
}

describe('canonicalJson', () => {
  it('SIG-6: sorts keys by code units at every depth, arrays kept in order, no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [3, { z: null, y: 'x' }], B: true })).toBe('{"B":true,"a":[3,{"y":"x","z":null}],"b":1}');
    expect(canonicalJson({ 2: 'two', 10: 'ten', a: 1 })).toBe('{"10":"ten","2":"two","a":1}');
    expect(canonicalJson({ 'é': 1, 'z': 2, '\u{1F600}': 3, '\uFFFF': 4 })).toBe('{"z":2,"é":1,"\u{1F600}":3,"\uFFFF":4}');
  });

  it('omits undefined members and follows JSON.stringify for the rest', () => {
    const value = { u: undefined, f: () => 1, n: NaN, i: -Infinity, z: -0, d: new Date(0), arr: [undefined, () => 1], s: 'a"\n' };
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(canonicalJson({ a: undefined })).toBe('{}');
    expect(canonicalJson([undefined])).toBe('[null]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('x')).toBe('"x"');
  });

  it('SIG-6: member names are quoted as JSON.stringify quotes them, the first time and every later time, past the remembered ones too', () => {
    const names = ['a"b', 'back\\slash', 'line\nbreak', '\u0000', '\uD800', 'é', 'x'.repeat(65), '__proto__'];
    const value = Object.fromEntries(names.map((n, i) => [n, i]));
    const expected = `{${[...names].sort().map((n) => `${JSON.stringify(n)}:${names.indexOf(n)}`).join(',')}}`;
    expect(canonicalJson(value)).toBe(expected);
    expect(canonicalJson(value)).toBe(expected);
    // More distinct names than are remembered: the later ones are quoted each time, alike.
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}"`, i]));
    expect(JSON.parse(canonicalJson(many))).toEqual(many);
    expect(canonicalJson({ 'k4999"': 1, 'zz"new': 2 })).toBe('{"k4999\\"":1,"zz\\"new":2}');
    expect(canonicalJson(value)).toBe(expected);
  });

  it('throws a TypeError on a cycle or a bigint', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });

  it('SIG-6 property: the key order of the input never changes the output', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(1000), (value, seed) => {
        expect(canonicalJson(reorder(value, seed))).toBe(canonicalJson(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('property: the output parses back deep-equal, with JSON.stringify\'s length', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(text.length).toBe(JSON.stringify(value).length);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });
});

import fc from 'fast-check';
import { copyFields } from '../../src/storage/local-ops';

/** A field value of any JSON-ish kind, the awkward ones included (what JSON.stringify drops, turns to null or calls). */
const value = fc.oneof(
  fc.string(), fc.boolean(), fc.constant(null), fc.integer(), fc.double(),
  fc.constantFrom(-0, NaN, Infinity, -Infinity, undefined),
  fc.date({ noInvalidDate: true }),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string(), fc.double()), { maxKeys: 3 }),
);
const name = fc.string({ maxLength: 6 }).filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k));

describe('copyFields: the data a write carries', () => {
  it('OPS-1: the data an insert or update carries equals its JSON round trip (what travels), keys in the same order, whatever the fields hold', () => {
    fc.assert(fc.property(fc.dictionary(name, value, { maxKeys: 8 }), (x) => {
      const copy = copyFields(x, 'data');
      const trip = JSON.parse(JSON.stringify(x)) as Record<string, unknown>;
      expect(copy).toEqual(trip);
      expect(Object.keys(copy)).toEqual(Object.keys(trip));
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    }), { numRuns: 500 });
  });

  it('OPS-1: a copy, not the object: later changes to the caller\'s object do not reach it', () => {
    const flat = { title: 'a', n: 1, done: false, none: null };
    const nested = { title: 'a', tags: ['x'] };
    const [c1, c2] = [copyFields(flat, 'data'), copyFields(nested, 'data')];
    flat.title = 'b';
    nested.tags.push('y');
    expect([c1.title, c2.tags]).toEqual(['a', ['x']]);
    expect(c1).not.toBe(flat);
  });

  it('OPS-1: -0 becomes 0, NaN null, undefined goes, a toJSON is called, as JSON has them', () => {
    const copy = copyFields({ z: -0, nan: NaN, gone: undefined, at: new Date(0) }, 'data');
    expect(Object.is(copy.z, 0)).toBe(true);
    expect(copy).toEqual({ z: 0, nan: null, at: '1970-01-01T00:00:00.000Z' });
    expect(copyFields({ a: 1, toJSON: () => ({ b: 2 }) }, 'data')).toEqual({ b: 2 });
  });

  it('OPS-1: a field that is no JSON (a BigInt) is INVALID_ARGUMENT, flat fields or not', () => {
    expect(() => copyFields({ n: 1n }, 'data')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => copyFields({ a: 'x', n: 1n }, 'data')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

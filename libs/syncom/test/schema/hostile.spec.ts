import { createSchema } from '../../src/schema';
import { loadSchemaPeers } from '../../src/schema/peers';
import { Note } from './fixtures';

const schema = createSchema({ version: 1, types: { Note } });

function hostile(): Record<string, unknown> {
  // JSON.parse defines "__proto__" and "constructor" as own keys, as a peer's op would.
  return JSON.parse(
    '{"$type":"Note","title":"x","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},' +
      '"author":{"name":"A","__proto__":{"polluted":3},"constructor":{"polluted":4}}}',
  ) as Record<string, unknown>;
}

describe('schema and hostile input', () => {
  afterEach(() => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('__proto__ / constructor keys do not pollute prototypes on a write', () => {
    const data = hostile();
    const result = schema.validateWrite(data);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.getPrototypeOf(result.data)).toBe(Object.prototype);
    expect(Object.hasOwn(result.data, '__proto__')).toBe(true);
    expect(result.data.tags).toEqual([]);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it('a record of 100,000 fields (a peer\'s op) is checked on the fields its class declares: the same verdicts and data, class-transformer handed those fields alone (its copy of every key was quadratic: 15 s at 150,000)', () => {
    const wide: Record<string, unknown> = { $type: 'Note', title: 'wide' };
    for (let i = 0; i < 100_000; i++) wide[`k${i}`] = i;
    const transformer = loadSchemaPeers().transformer;
    const handed: number[] = [];
    const real = transformer.plainToInstance.bind(transformer) as (cls: unknown, plain: unknown, o?: unknown) => unknown;
    const spy = jest.spyOn(transformer, 'plainToInstance').mockImplementation(((cls: unknown, plain: unknown, o?: unknown) => {
      handed.push(Object.keys(plain as object).length);
      return real(cls, plain, o);
    }) as never);
    let written, refused, updated;
    try {
      written = schema.validateWrite(wide);
      refused = schema.validateWrite({ ...wide, title: 5 });
      updated = schema.validateUpdate({ ...wide, rank: -1 });
    } finally {
      spy.mockRestore();
    }
    expect(written.ok && written.data.k99999).toBe(99_999);
    expect(written.ok && written.data.tags).toEqual([]);
    expect(refused).toEqual({ ok: false, errors: ['title must be a string'] });
    expect(updated).toEqual({ ok: false, errors: ['rank must not be less than 0'] });
    // The work class-transformer does is the keys it is handed: the class's fields (a few), not the record's 100,000.
    expect(handed).toHaveLength(3);
    expect(Math.max(...handed)).toBeLessThanOrEqual(10);
  });

  it('an own constructor key does not switch the class off: the record is still validated', () => {
    const data = hostile();
    data.title = 5;
    expect(schema.validateWrite(data)).toEqual({ ok: false, errors: ['title must be a string'] });
    expect(schema.validateUpdate(data)).toEqual({ ok: false, errors: ['title must be a string'] });
  });

  it('never throws: a throwing getter, a cycle or non-object data is an ok: false or a pass', () => {
    const getter = { $type: 'Note', title: 'x' };
    Object.defineProperty(getter, 'rank', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(schema.validateWrite(getter)).toEqual({ ok: false, errors: ['validation failed: boom'] });
    const cyclic: Record<string, unknown> = { $type: 'Note', title: 'x' };
    cyclic.self = cyclic;
    expect(() => schema.validateWrite(cyclic)).not.toThrow();
    expect(schema.validateWrite(null as unknown as Record<string, unknown>).ok).toBe(true);
  });
});

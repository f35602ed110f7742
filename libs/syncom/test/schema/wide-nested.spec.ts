import 'reflect-metadata';
import * as transformer from 'class-transformer';
import { Type } from 'class-transformer';
import {
  IsInt, IsNotEmptyObject, IsOptional, IsString, Validate, ValidateNested, validateSync,
  ValidatorConstraint, type ValidatorConstraintInterface,
} from 'class-validator';
import { createSchema } from '../../src/schema';
import { transformNarrow, WIDE } from '../../src/schema/narrow';
import { sanitizeValue } from '../../src/schema/plain';
import { errorMessages } from '../../src/schema/validate';
import { node, ship } from '../storage/helpers';

/**
 * class-transformer's plainToInstance drops repeated keys of every object it
 * copies with an indexOf per key: quadratic in the keys of any one object. The
 * top level of a record was guarded (a record of more than 256 fields is
 * checked on its declared fields); a nested object was not, and a peer's op
 * `{ $type, title, extra: { 40,000 keys } }` held a node with a schema for
 * 0.7 s (150,000 keys, 9 s). These tests count the keys of the objects handed
 * to class-transformer, and hold the instance built to class-transformer's own.
 */

@ValidatorConstraint({ name: 'fewKeys' })
class FewKeys implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.keys(value).length <= 300;
  }
  defaultMessage(): string {
    return 'bag has more than 300 keys';
  }
}

class Meta {
  @IsString() name!: string;
  @IsOptional() @ValidateNested() @Type(() => Meta) inner?: Meta;
}
class Circle { @IsInt() r!: number; }
class Square { @IsInt() side!: number; }

class Wide {
  @IsString() title!: string;
  @IsOptional() @IsNotEmptyObject() @Validate(FewKeys) bag?: Record<string, unknown>;
  @IsOptional() @ValidateNested() @Type(() => Meta) meta?: Meta;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Meta) metas?: Meta[];
  @IsOptional() @ValidateNested()
  @Type(() => Object, { discriminator: { property: 'kind', subTypes: [{ value: Circle, name: 'circle' }, { value: Square, name: 'square' }] } })
  shape?: Circle | Square;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Meta) byName?: Map<string, Meta>;
  tags: string[] = [];
}

/** `n` keys k0..k(n-1), values their index. */
function keys(n: number, from = 0): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = from; i < from + n; i++) out[`k${i}`] = i;
  return out;
}

/** The most own keys of any one object in `value`, as class-transformer lists them (Object.keys). */
function widest(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  return Math.max(Array.isArray(value) ? 0 : Object.keys(value).length, ...items.map(widest));
}

const realPlainToInstance = transformer.plainToInstance;
let handed = 0;
beforeEach(() => {
  handed = 0;
  jest.spyOn(transformer, 'plainToInstance').mockImplementation(((cls: never, plain: unknown, options: never) => {
    handed = Math.max(handed, widest(plain));
    return realPlainToInstance(cls, plain, options);
  }) as typeof transformer.plainToInstance);
});
afterEach(() => jest.restoreAllMocks());

const schema = createSchema({ version: 1, types: { Wide } });

/** What class-transformer and class-validator make of `data` whole: the quadratic reference. */
function reference(data: Record<string, unknown>, mode: 'write' | 'update') {
  const instance = realPlainToInstance(Wide, JSON.parse(JSON.stringify(data)), { exposeDefaultValues: true });
  const errors = validateSync(instance, { forbidUnknownValues: false, skipUndefinedProperties: mode === 'update' });
  return { instance, verdict: errors.length > 0 ? { ok: false, errors: errorMessages(errors) } : { ok: true } };
}

const wideCases: [string, Record<string, unknown>][] = [
  ['an untyped object of 300 keys', { $type: 'Wide', title: 't', bag: keys(300) }],
  ['an untyped object of 301 keys (a constraint counting them)', { $type: 'Wide', title: 't', bag: keys(301) }],
  ['an untyped object whose keys name methods of Object.prototype', { $type: 'Wide', title: 't', bag: { ...keys(300), toString: 1, hasOwnProperty: 2 } }],
  ['a @Type class of 300 keys, valid', { $type: 'Wide', title: 't', meta: { name: 'x', ...keys(300) } }],
  ['a @Type class of 300 keys, a declared field bad', { $type: 'Wide', title: 't', meta: { ...keys(300), name: 5 } }],
  ['a wide @Type class in a wide @Type class', { $type: 'Wide', title: 't', meta: { name: 'x', ...keys(300), inner: { ...keys(400), name: 7, inner: { name: 'deep' } } } }],
  ['an array of wide @Type classes, one bad', { $type: 'Wide', title: 't', metas: [0, 1, 2, 3].map((i) => ({ name: i === 2 ? i : `m${i}`, ...keys(300) })) }],
  ['a discriminator picking the subtype of a wide object', { $type: 'Wide', title: 't', shape: { ...keys(300), kind: 'square', side: 'x' } }],
  ['a discriminator picking the other subtype', { $type: 'Wide', title: 't', shape: { kind: 'circle', r: 2, ...keys(300) } }],
];

describe('a wide nested object costs class-transformer linear time', () => {
  it.each(wideCases)('GUAR-12: %s: the same verdict and instance as class-transformer\'s own, no object of more than 256 keys handed to it', (_what, data) => {
    for (const mode of ['write', 'update'] as const) {
      const { instance, verdict } = reference(data, mode);
      handed = 0;
      const r = mode === 'write' ? schema.validateWrite(data) : schema.validateUpdate(data);
      expect(handed).toBeLessThanOrEqual(WIDE);
      expect(r.ok ? { ok: true } : r).toEqual(verdict);
      if (mode === 'write' && r.ok) expect(r.data).toEqual({ ...data, tags: [] });
      expect(transformNarrow(Wide, sanitizeValue(data) as Record<string, unknown>)).toStrictEqual(instance);
    }
  });

  it('GUAR-12: an object of 40,000 keys, untyped or of a @Type class, reaches class-transformer as one key', () => {
    const bag = keys(40_000);
    expect(schema.validateWrite({ $type: 'Wide', title: 't', bag })).toEqual({ ok: false, errors: ['bag has more than 300 keys'] });
    expect(handed).toBeLessThanOrEqual(WIDE);
    const write = schema.validateWrite({ $type: 'Wide', title: 't', meta: { name: 'x', ...bag } });
    expect(write.ok && Object.keys(write.data.meta as object).length).toBe(40_001);
    expect(schema.validateUpdate({ $type: 'Wide', meta: { name: 1, ...bag } })).toEqual({ ok: false, errors: ['meta.name must be a string'] });
    expect(handed).toBeLessThanOrEqual(WIDE);
  });

  it('a Map-typed field of more than 256 entries is refused, not validated in quadratic time; a smaller one is validated', () => {
    const entries: Record<string, unknown> = {};
    for (let i = 0; i < WIDE + 1; i++) entries[`n${i}`] = { name: `m${i}` };
    const r = schema.validateWrite({ $type: 'Wide', title: 't', byName: entries });
    expect(r).toEqual({ ok: false, errors: [expect.stringContaining(`Map-typed field of more than ${WIDE} entries`)] });
    expect(schema.validateWrite({ $type: 'Wide', title: 't', byName: { a: { name: 'x' }, b: { name: 2 } } })).toEqual({ ok: false, errors: ['byName.b.name must be a string'] });
  });

  it('GUAR-12: a peer\'s write with a nested object of 40,000 keys is judged in linear time: a bad one is OP_INVALID (skipped), a good one applied; a local insert too', async () => {
    const writer = await node(1);
    const { s } = await node(2, { schema: { version: 1, types: { Wide } } });
    await writer.s.set('bad', { $type: 'Wide', title: 't', meta: { ...keys(40_000), name: 5 } });
    await writer.s.set('good', { $type: 'Wide', title: 't', meta: { name: 'x', ...keys(40_000) } });
    const res = await ship(writer.s, s);
    expect(res.skipped).toBe(1);
    expect(res.applied).toBe(1);
    expect(await s.get('bad')).toBeUndefined();
    expect(await s.get('good')).toMatchObject({ meta: { name: 'x', k39999: 39_999 } });
    expect(handed).toBeLessThanOrEqual(WIDE);
    await expect(s.insert({ $type: 'Wide', title: 't', bag: { ...keys(40_000) } })).rejects.toMatchObject({ code: 'OP_INVALID' });
    const id = await s.insert({ $type: 'Wide', title: 't', meta: { name: 'x', ...keys(40_000) } });
    expect(await s.get(id)).toMatchObject({ meta: { k0: 0 } });
    expect(handed).toBeLessThanOrEqual(WIDE);
  });
});

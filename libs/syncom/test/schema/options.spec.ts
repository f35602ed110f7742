import { isSyncomError } from '../../src/errors';
import { createSchema, type SchemaOptions } from '../../src/schema';
import { Note } from './fixtures';

function codeOf(options: unknown): string | undefined {
  try {
    createSchema(options as SchemaOptions);
    return undefined;
  } catch (e) {
    return isSyncomError(e) ? e.code : `not a SyncomError: ${String(e)}`;
  }
}

describe('createSchema options', () => {
  it('applies the defaults: typeField $type, ahead hold', () => {
    const schema = createSchema({ version: 0, types: {} });
    expect(schema).toMatchObject({ version: 0, typeField: '$type', ahead: 'hold' });
    expect(createSchema({ version: 1, types: { Note }, ahead: 'apply' }).ahead).toBe('apply');
  });

  it.each([
    ['no options', null],
    ['a negative version', { version: -1, types: {} }],
    ['a fractional version', { version: 1.5, types: {} }],
    ['a string version', { version: '1', types: {} }],
    ['a NaN version', { version: NaN, types: {} }],
    ['missing types', { version: 1 }],
    ['types as an array', { version: 1, types: [Note] }],
    ['a type that is not a class', { version: 1, types: { Note: {} } }],
    ['an arrow function as a type', { version: 1, types: { Note: () => ({}) } }],
    ['an empty type name', { version: 1, types: { '': Note } }],
    ['an empty typeField', { version: 1, types: {}, typeField: '' }],
    ['a bad ahead', { version: 1, types: {}, ahead: 'skip' }],
  ])('throws INVALID_ARGUMENT for %s', (_title, options) => {
    expect(codeOf(options)).toBe('INVALID_ARGUMENT');
  });

  it('throws INVALID_ARGUMENT for a class whose constructor throws or whose defaults have no JSON form', () => {
    class Throws { constructor() { throw new Error('no'); } }
    class BigDefault { n = 1n; }
    expect(codeOf({ version: 1, types: { Throws } })).toBe('INVALID_ARGUMENT');
    expect(codeOf({ version: 1, types: { BigDefault } })).toBe('INVALID_ARGUMENT');
  });

  it('the schema object is frozen', () => {
    const schema = createSchema({ version: 1, types: { Note } });
    expect(Object.isFrozen(schema)).toBe(true);
  });
});

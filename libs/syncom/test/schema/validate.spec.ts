import { createSchema } from '../../src/schema';
import { Note } from './fixtures';

const schema = createSchema({ version: 1, types: { Note } });

describe('schema validateWrite', () => {
  it('KIND-16: a default `tags: string[] = []` is folded into the write\'s data', () => {
    const data = { $type: 'Note', title: 'Draft' };
    const result = schema.validateWrite(data);
    expect(result).toEqual({ ok: true, data: { $type: 'Note', title: 'Draft', tags: [] } });
    expect(data).toEqual({ $type: 'Note', title: 'Draft' });
  });

  it('keeps the input\'s own values as given: a date string stays a string, nested objects stay plain', () => {
    const data = { $type: 'Note', title: 'x', tags: ['a'], due: '2024-05-01T00:00:00.000Z', author: { name: 'Ann' } };
    const result = schema.validateWrite(data);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.data).toEqual(data);
    expect(result.data).not.toBe(data);
    expect(typeof result.data.due).toBe('string');
    expect(Object.getPrototypeOf(result.data.author)).toBe(Object.prototype);
    expect(result.data.tags).toBe(data.tags);
  });

  it('a field given as undefined takes the default', () => {
    const result = schema.validateWrite({ $type: 'Note', title: 'x', tags: undefined });
    expect(result).toEqual({ ok: true, data: { $type: 'Note', title: 'x', tags: [] } });
  });

  it('invalid data -> ok: false with the constraint messages', () => {
    const result = schema.validateWrite({ $type: 'Note', title: 3, rank: -1, tags: ['a', 2] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        'title must be a string',
        'rank must not be less than 0',
        'each value in tags must be a string',
      ]),
    );
    expect(result.errors).toHaveLength(3);
  });

  it('names a nested property by its path', () => {
    const result = schema.validateWrite({ $type: 'Note', title: 'x', author: { name: 7 } });
    expect(result).toEqual({ ok: false, errors: ['author.name must be a string'] });
  });

  it('a record without the type field, or of an unknown type, passes unchanged', () => {
    const untyped = { title: 3 };
    const unknown = { $type: 'Memo', title: 3 };
    const inherited = { $type: 'toString', title: 3 };
    expect(schema.validateWrite(untyped)).toEqual({ ok: true, data: untyped });
    expect(schema.validateWrite(unknown)).toEqual({ ok: true, data: unknown });
    expect(schema.validateWrite(inherited)).toEqual({ ok: true, data: inherited });
    expect(schema.validateWrite({ $type: 1 }).ok).toBe(true);
  });

  it('honours a custom typeField', () => {
    const custom = createSchema({ version: 1, types: { Note }, typeField: 'kind' });
    expect(custom.validateWrite({ kind: 'Note', title: 1 }).ok).toBe(false);
    expect(custom.validateWrite({ $type: 'Note', title: 1 }).ok).toBe(true);
  });
});

describe('schema validateUpdate', () => {
  it('skips missing properties and answers merged unchanged', () => {
    const merged = { $type: 'Note', rank: 2 };
    const result = schema.validateUpdate(merged);
    expect(result).toEqual({ ok: true, data: merged });
    if (result.ok) expect(result.data).toBe(merged);
  });

  it('still checks the properties that are there', () => {
    expect(schema.validateUpdate({ $type: 'Note', title: 'x', rank: 1.5 })).toEqual({
      ok: false,
      errors: ['rank must be an integer number'],
    });
  });

  it('the same data fails a write that misses a required property', () => {
    expect(schema.validateWrite({ $type: 'Note', rank: 2 })).toEqual({ ok: false, errors: ['title must be a string'] });
  });
});

import { IsString } from 'class-validator';
import { createSchema, schemaDrift } from '../../src/schema';
import { buildNoteClass, Note } from './fixtures';

const hashOf = (types: Record<string, new () => object>, version = 1) => createSchema({ version, types }).hash;

describe('schema hash', () => {
  it('SCHEMA-1: info() is { version, hash }, the hash a hex SHA-256', () => {
    const schema = createSchema({ version: 3, types: { Note } });
    expect(schema.info()).toEqual({ version: 3, hash: schema.hash });
    expect(schema.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(schema).toMatchObject({ version: 3, ahead: 'hold', typeField: '$type' });
  });

  it('is stable across two identical class definitions, whatever the class names', () => {
    const a = buildNoteClass();
    const b = buildNoteClass();
    expect(a).not.toBe(b);
    expect(hashOf({ Note: a })).toBe(hashOf({ Note: b }));
    class Renamed extends Object {}
    class Other extends Object {}
    expect(hashOf({ Empty: Renamed })).toBe(hashOf({ Empty: Other }));
  });

  it('changes with a constraint, a constraint argument or a default', () => {
    const base = hashOf({ Note: buildNoteClass() });
    expect(hashOf({ Note: buildNoteClass({ extra: true }) })).not.toBe(base);
    expect(hashOf({ Note: buildNoteClass({ minRank: 1 }) })).not.toBe(base);
    expect(hashOf({ Note: buildNoteClass({ defaultTags: ['x'] }) })).not.toBe(base);
  });

  it('changes with the version, the typeField and the record type names', () => {
    const cls = buildNoteClass();
    const base = hashOf({ Note: cls });
    expect(hashOf({ Note: cls }, 2)).not.toBe(base);
    expect(createSchema({ version: 1, types: { Note: cls }, typeField: 'kind' }).hash).not.toBe(base);
    expect(hashOf({ Memo: cls })).not.toBe(base);
  });

  it('does not depend on the order of the types', () => {
    class A { @IsString() a!: string; }
    class B { @IsString() b!: string; }
    expect(hashOf({ A, B })).toBe(hashOf({ B, A }));
  });
});

describe('schemaDrift', () => {
  const local = { version: 2, hash: 'aa' };

  it('SCHEMA-5: the same version with another hash is drift', () => {
    expect(schemaDrift(local, { version: 2, hash: 'bb' })).toBe(true);
  });

  it('SCHEMA-5: the same version and hash is not drift', () => {
    expect(schemaDrift(local, { version: 2, hash: 'aa' })).toBe(false);
  });

  it('SCHEMA-7: another version is not drift', () => {
    expect(schemaDrift(local, { version: 3, hash: 'bb' })).toBe(false);
  });

  it('SCHEMA-7: a node without a schema (null) is never drift', () => {
    expect(schemaDrift(null, local)).toBe(false);
    expect(schemaDrift(local, null)).toBe(false);
    expect(schemaDrift(null, null)).toBe(false);
  });

  it('SCHEMA-5: two builds whose classes disagree drift at the same version', () => {
    const one = createSchema({ version: 4, types: { Note: buildNoteClass() } }).info();
    const two = createSchema({ version: 4, types: { Note: buildNoteClass({ minRank: 5 }) } }).info();
    expect(schemaDrift(one, two)).toBe(true);
    expect(schemaDrift(one, createSchema({ version: 4, types: { Note: buildNoteClass() } }).info())).toBe(false);
  });
});

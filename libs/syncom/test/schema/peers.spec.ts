import { IsString } from 'class-validator';

const missing = (name: string) => () => {
  const error = new Error(`Cannot find module '${name}' from 'peers.ts'`) as Error & { code: string };
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};

class Note {
  @IsString() title!: string;
}

/** createSchema from a fresh module registry where `absent` packages cannot be found. */
function createSchemaWithout(absent: string[]): () => unknown {
  let create: ((options: unknown) => unknown) | undefined;
  jest.isolateModules(() => {
    for (const name of absent) jest.doMock(name, missing(name));
    create = require('../../src/schema').createSchema;
  });
  return () => create!({ version: 1, types: { Note } });
}

describe('schema peers: class-validator and class-transformer are optional peer dependencies', () => {
  afterEach(() => jest.dontMock('class-validator') && jest.dontMock('class-transformer'));

  it('a schema without class-validator installed fails with INVALID_ARGUMENT naming the package to install', () => {
    const create = createSchemaWithout(['class-validator']);
    expect(create).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(create).toThrow(/\(npm install class-validator\)$/);
  });

  it('a schema without either names both', () => {
    expect(createSchemaWithout(['class-validator', 'class-transformer'])).toThrow(
      /install class-validator and class-transformer \(npm install class-validator class-transformer\)/,
    );
  });

  it('with both installed, a schema validates as before', () => {
    const schema = createSchemaWithout([])() as { validateWrite: (d: object) => { ok: boolean } };
    expect(schema.validateWrite({ $type: 'Note', title: 'x' }).ok).toBe(true);
    expect(schema.validateWrite({ $type: 'Note', title: 5 }).ok).toBe(false);
  });
});

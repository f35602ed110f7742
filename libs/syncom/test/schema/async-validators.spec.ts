import { Type } from 'class-transformer';
import { IsString, Validate, ValidateNested, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { createSchema } from '../../src/schema';
import { SyncomError } from '../../src/errors';

@ValidatorConstraint({ name: 'flaggedAsync', async: true })
class FlaggedAsync implements ValidatorConstraintInterface {
  validate(): Promise<boolean> { return Promise.resolve(false); }
}

/** Not flagged async, as is easy to write: class-validator's validateSync drops its promise. */
@ValidatorConstraint({ name: 'lookup' })
class Lookup implements ValidatorConstraintInterface {
  async validate(value: unknown): Promise<boolean> {
    if (value === 'boom') throw new Error('lookup failed');
    return value === 'known';
  }
}

@ValidatorConstraint({ name: 'plain' })
class Plain implements ValidatorConstraintInterface {
  validate(value: unknown): boolean { return value === 'known'; }
}

class Flagged { @IsString() title!: string; @Validate(FlaggedAsync) ref?: string; }
class Unflagged { @IsString() title!: string; @Validate(Lookup) ref?: string; }
class Inner { @Validate(Lookup) ref?: string; }
class Outer { @IsString() title!: string; @ValidateNested() @Type(() => Inner) inner?: Inner; }
class Base { @Validate(Lookup) ref?: string; }
class Derived extends Base { @IsString() title!: string; }
class Sync { @IsString() title!: string; @Validate(Plain) ref?: string; }

function refusal(types: Record<string, new () => object>): SyncomError | undefined {
  try {
    createSchema({ version: 1, types });
    return undefined;
  } catch (e) {
    return e as SyncomError;
  }
}

describe('a schema validates synchronously', () => {
  it('an async constraint (flagged, an async validate, inherited or nested) is refused when the schema is made, naming it, not skipped at every write', () => {
    for (const [types, named] of [
      [{ Flagged }, 'Flagged.ref (flaggedAsync)'],
      [{ Unflagged }, 'Unflagged.ref (lookup)'],
      [{ Outer }, 'Inner.ref (lookup)'],
      [{ Derived }, 'Derived.ref (lookup)'],
    ] as const) {
      const e = refusal(types as unknown as Record<string, new () => object>);
      expect(e).toBeInstanceOf(SyncomError);
      expect(e?.code).toBe('INVALID_ARGUMENT');
      expect(e?.message).toContain(named);
      expect(e?.message).toContain('asynchronously');
    }
  });

  it('a synchronous custom constraint is taken, and judges', () => {
    const schema = createSchema({ version: 1, types: { Sync } });
    expect(schema.validateWrite({ $type: 'Sync', title: 't', ref: 'known' }).ok).toBe(true);
    expect(schema.validateWrite({ $type: 'Sync', title: 't', ref: 'other' }).ok).toBe(false);
  });
});

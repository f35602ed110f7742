import { Type } from 'class-transformer';
import { IsOptional, Validate, ValidateNested, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { createSchema } from '../../src/schema';

/** Answers what the value names: validate() is typed boolean, but plain JS (or `any`) can answer anything. */
@ValidatorConstraint({ name: 'echo' })
class Echo implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    const answers: Record<string, unknown> = { zero: 0, null: null, false: false, empty: '', yes: 'yes', one: 1, true: true };
    return answers[String(value)] as boolean;
  }
}

/** No name given: class-validator names it after the class. */
@ValidatorConstraint()
class UnnamedCheck implements ValidatorConstraintInterface {
  validate(): boolean { return false; }
}

@ValidatorConstraint({ name: 'blankMessage' })
class BlankMessage implements ValidatorConstraintInterface {
  validate(): boolean { return false; }
  defaultMessage(): string { return '  '; }
}

@ValidatorConstraint({ name: 'explained' })
class Explained implements ValidatorConstraintInterface {
  validate(): boolean { return false; }
  defaultMessage(): string { return '$property is not explained'; }
}

class Inner { @Validate(Echo) code!: string; }

class Checked {
  @IsOptional() @Validate(Echo) code?: string;
  @IsOptional() @Validate(UnnamedCheck) unnamed?: string;
  @IsOptional() @Validate(BlankMessage) blank?: string;
  @IsOptional() @Validate(Explained) explained?: string;
  @IsOptional() @ValidateNested() @Type(() => Inner) inner?: Inner;
}

const schema = createSchema({ version: 1, types: { Checked } });
const write = (data: Record<string, unknown>) => schema.validateWrite({ $type: 'Checked', ...data });

describe('schema: custom constraints', () => {
  it.each(['zero', 'null', 'false', 'empty'])('a constraint answering %s fails with a message naming the field and the constraint', (answer) => {
    expect(write({ code: answer })).toEqual({ ok: false, errors: ['code: echo failed'] });
  });

  it('an unnamed constraint is named as class-validator names it; a blank default message is no message', () => {
    expect(write({ unnamed: 'x' })).toEqual({ ok: false, errors: ['unnamed: UnnamedCheck failed'] });
    expect(write({ blank: 'x' })).toEqual({ ok: false, errors: ['blank: blankMessage failed'] });
  });

  it('a nested field is named by its path; a constraint\'s own message is kept', () => {
    expect(write({ inner: { code: 'null' } })).toEqual({ ok: false, errors: ['inner.code: echo failed'] });
    expect(write({ explained: 'x' })).toEqual({ ok: false, errors: ['explained is not explained'] });
  });

  it('an answer is read as class-validator reads it: true and any other truthy value (1, "yes") pass', () => {
    for (const answer of ['true', 'one', 'yes']) expect(write({ code: answer }).ok).toBe(true);
    expect(schema.validateUpdate({ $type: 'Checked', code: 'yes' }).ok).toBe(true);
  });
});

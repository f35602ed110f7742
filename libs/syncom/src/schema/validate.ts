import type { ValidationError } from 'class-validator';
import { loadSchemaPeers } from './peers';
import { declaredOf, pickFields, transformNarrow, WIDE } from './narrow';
import { copyFields, defineField, isPlainObject, plainDefault, sanitizeValue } from './plain';
import type { RecordClass, Validation } from './types';

/** How a record is checked: a whole-record write or a set of some fields. */
export type ValidationMode = 'write' | 'update';

/**
 * The constraint messages of class-validator's errors, one string each;
 * a nested property's message is prefixed with its parent's path ("author.name must be a string").
 * A failed constraint without a message of its own (a custom constraint with
 * no `message` or `defaultMessage`, where class-validator gives "") reads
 * "<field>: <constraint name> failed", so every refusal says what refused it.
 */
export function errorMessages(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const error of errors) {
    const constraints = Object.entries(error.constraints ?? {});
    for (const [name, message] of constraints) {
      const said = typeof message === 'string' && message.trim() !== '';
      out.push(said ? prefix + message : `${prefix}${error.property}: ${name} failed`);
    }
    const children = error.children ?? [];
    if (constraints.length === 0 && children.length === 0) out.push(`${prefix}${error.property} is invalid`);
    out.push(...errorMessages(children, `${prefix}${error.property}.`));
  }
  return out;
}

/**
 * The class instance class-validator checks: built from a sanitized copy, class
 * defaults filled in, in time linear in the data's size (transformNarrow). A
 * record of more than WIDE fields is checked on the fields its class declares.
 */
function toInstance(cls: RecordClass, data: Record<string, unknown>): object {
  const keys = Object.keys(data);
  const checked = keys.length > WIDE ? pickFields(data, declaredOf(cls)) : data;
  return transformNarrow(cls, sanitizeValue(checked) as Record<string, unknown>);
}

/**
 * `data` plus each default of `instance` the data lacks (absent or undefined),
 * as plain JSON. The data's own values are kept exactly as given.
 */
export function foldDefaults(data: Record<string, unknown>, instance: object): Record<string, unknown> {
  const out = copyFields(data);
  for (const [key, value] of Object.entries(instance)) {
    if (value === undefined || (Object.hasOwn(data, key) && data[key] !== undefined)) continue;
    const plain = plainDefault(value);
    if (plain !== undefined) defineField(out, key, plain);
  }
  return out;
}

/**
 * Validates `data` as a record of class `cls`. A write answers the data with
 * the class's defaults folded in (KIND-16: `tags: string[] = []` lands as a
 * register); an update skips missing properties and answers `data` itself.
 * Never throws: a failure of the validator itself is an `ok: false`.
 */
export function validateRecord(cls: RecordClass, data: Record<string, unknown>, mode: ValidationMode): Validation {
  try {
    if (!isPlainObject(data)) return { ok: false, errors: ['data must be a plain object'] };
    const instance = toInstance(cls, data);
    // An update skips the fields it does not set (undefined), not one it sets to null: null is checked as any value,
    // and passes only where the class allows it (@IsOptional). skipMissingProperties skipped both.
    const errors = loadSchemaPeers().validator.validateSync(instance, { forbidUnknownValues: false, skipUndefinedProperties: mode === 'update' });
    if (errors.length > 0) return { ok: false, errors: errorMessages(errors) };
    return { ok: true, data: mode === 'write' ? foldDefaults(data, instance) : data };
  } catch (e) {
    return { ok: false, errors: [`validation failed: ${e instanceof Error ? e.message : String(e)}`] };
  }
}

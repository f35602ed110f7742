import type { ValidationError } from 'class-validator';
import { loadSchemaPeers } from './peers';
import { copyFields, defineField, isPlainObject, plainDefault, sanitizeValue } from './plain';
import type { RecordClass, Validation } from './types';

/** How a record is checked: a whole-record write or a set of some fields. */
export type ValidationMode = 'write' | 'update';

/**
 * The constraint messages of class-validator's errors, one string each;
 * a nested property's message is prefixed with its parent's path ("author.name must be a string").
 */
export function errorMessages(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const error of errors) {
    const messages = Object.values(error.constraints ?? {});
    for (const message of messages) out.push(prefix + message);
    const children = error.children ?? [];
    if (messages.length === 0 && children.length === 0) out.push(`${prefix}${error.property} is invalid`);
    out.push(...errorMessages(children, `${prefix}${error.property}.`));
  }
  return out;
}

/** Past this many fields, a record is checked on the fields its class declares only (see declaredOf). */
const WIDE = 256;
const declaredFields = new WeakMap<RecordClass, ReadonlySet<string>>();

/**
 * The fields class-validator can look at in a record of `cls`: those its
 * decorators name (inherited ones too) and those its instances default. The
 * others are not validated (no whitelist, forbidUnknownValues off), so a
 * record's copy for class-transformer needs none of them: class-transformer
 * drops repeated keys with an indexOf per key, quadratic in the fields, and
 * a peer's op of 150,000 fields held a node with a schema for 15 s.
 */
function declaredOf(cls: RecordClass): ReadonlySet<string> {
  let names = declaredFields.get(cls);
  if (!names) {
    const metas = loadSchemaPeers().validator.getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false);
    names = new Set([...metas.map((m) => m.propertyName), ...Object.keys(new cls() as object)]);
    declaredFields.set(cls, names);
  }
  return names;
}

/** The class instance class-validator checks: built from a sanitized copy, class defaults filled in. */
function toInstance(cls: RecordClass, data: Record<string, unknown>): object {
  const keys = Object.keys(data);
  const checked = keys.length > WIDE ? pickFields(data, declaredOf(cls)) : data;
  const source = sanitizeValue(checked) as Record<string, unknown>;
  return loadSchemaPeers().transformer.plainToInstance(cls, source, { exposeDefaultValues: true });
}

/** The fields of `data` named in `names`, as own data properties. */
function pickFields(data: Record<string, unknown>, names: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(data, name)) defineField(out, name, data[name]);
  return out;
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

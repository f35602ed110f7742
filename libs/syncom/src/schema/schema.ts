import { SyncomError } from '../errors';
import { schemaHash } from './describe';
import { loadSchemaPeers } from './peers';
import { resolveSchemaOptions } from './options';
import { retypeJudge } from './retype';
import { asyncConstraint } from './sync-only';
import type { RecordClass, Schema, SchemaOptions, Validation } from './types';
import { validateRecord, type ValidationMode } from './validate';

/** The class a record's data names through the type field, if the schema knows it. */
function classOf(
  types: ReadonlyMap<string, RecordClass>,
  typeField: string,
  data: Record<string, unknown>,
): RecordClass | undefined {
  if (typeof data !== 'object' || data === null || !Object.hasOwn(data, typeField)) return undefined;
  const name = data[typeField];
  return typeof name === 'string' ? types.get(name) : undefined;
}

/**
 * Builds a schema from its options: class-validator classes per record type,
 * the version ops carry as `v`, and the hash hello carries for drift checks.
 * A record with no type field, or a type not in `types`, passes unchanged.
 *
 * @throws SyncomError INVALID_ARGUMENT for a bad option, class-validator or class-transformer not installed, a class whose defaults cannot be built or have no JSON form, or a constraint that validates asynchronously.
 * @example
 * class Note { @IsString() title!: string; tags: string[] = []; }
 * const schema = createSchema({ version: 1, types: { Note } });
 * schema.validateWrite({ $type: 'Note', title: 'x' }); // { ok: true, data: { $type: 'Note', title: 'x', tags: [] } }
 */
export function createSchema(options: SchemaOptions): Schema {
  const { version, typeField, ahead, maxAhead, types } = resolveSchemaOptions(options);
  loadSchemaPeers();
  for (const [name, cls] of types) {
    const found = asyncConstraint(cls);
    if (found) throw new SyncomError('INVALID_ARGUMENT', `schema: types.${name}: ${found} validates asynchronously; a schema's validators run synchronously (on every write and every peer's op), where class-validator would skip it`);
  }
  let hash: string;
  try {
    hash = schemaHash(version, typeField, types);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new SyncomError('INVALID_ARGUMENT', `schema: a record class cannot be described (${why})`, { cause: e });
  }
  const check = (data: Record<string, unknown>, mode: ValidationMode): Validation => {
    const cls = classOf(types, typeField, data);
    return cls === undefined ? { ok: true, data } : validateRecord(cls, data, mode);
  };
  return Object.freeze({
    version,
    hash,
    ahead,
    maxAhead,
    typeField,
    info: () => ({ version, hash }),
    validateWrite: (data: Record<string, unknown>) => check(data, 'write'),
    validateUpdate: (merged: Record<string, unknown>) => check(merged, 'update'),
    judgeRetype: retypeJudge(types, typeField),
  });
}

import { SyncomError } from '../errors';
import { isPlainObject } from './plain';
import type { RecordClass, SchemaOptions } from './types';

/** Schema options with their defaults applied and the types in a Map (no prototype lookups). */
export interface ResolvedSchemaOptions {
  version: number;
  typeField: string;
  ahead: 'hold' | 'apply';
  types: ReadonlyMap<string, RecordClass>;
}

function invalid(message: string): SyncomError {
  return new SyncomError('INVALID_ARGUMENT', `schema: ${message}`);
}

function resolveTypes(types: unknown): Map<string, RecordClass> {
  if (!isPlainObject(types)) throw invalid('types must be an object of type name -> class');
  const out = new Map<string, RecordClass>();
  for (const [name, cls] of Object.entries(types)) {
    if (name === '') throw invalid('a record type name must not be empty');
    if (typeof cls !== 'function' || cls.prototype === undefined) {
      throw invalid(`types.${name} must be a class (constructor with no arguments)`);
    }
    out.set(name, cls as RecordClass);
  }
  return out;
}

/**
 * Checks `open({ schema })`'s options and applies the defaults
 * (typeField `'$type'`, ahead `'hold'`).
 *
 * @throws SyncomError INVALID_ARGUMENT naming the bad option.
 */
export function resolveSchemaOptions(options: SchemaOptions): ResolvedSchemaOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  const { version, typeField = '$type', ahead = 'hold' } = options;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    throw invalid(`version must be a non-negative integer, got ${String(version)}`);
  }
  if (typeof typeField !== 'string' || typeField === '') throw invalid('typeField must be a non-empty string');
  if (ahead !== 'hold' && ahead !== 'apply') throw invalid(`ahead must be 'hold' or 'apply', got ${String(ahead)}`);
  return { version, typeField, ahead, types: resolveTypes(options.types) };
}

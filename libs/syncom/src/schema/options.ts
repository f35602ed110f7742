import { SyncomError } from '../errors';
import { isPlainObject } from './plain';
import type { RecordClass, SchemaOptions } from './types';

/** Schema options with their defaults applied and the types in a Map (no prototype lookups). */
export interface ResolvedSchemaOptions {
  version: number;
  typeField: string;
  ahead: 'hold' | 'apply';
  maxAhead: number;
  types: ReadonlyMap<string, RecordClass>;
}

/**
 * How far past its own version a node holds a version for, by default. The
 * version is the writer's claim (any token holder's op may name 2^53 - 1, and
 * a hub without a schema keeps it as the record's meta.v): held for it, a
 * record stayed hidden from every node with a schema, whatever it upgraded
 * to. Past this, a version is taken as the node's own.
 */
export const DEFAULT_MAX_AHEAD = 1000;

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
  const { version, typeField = '$type', ahead = 'hold', maxAhead = DEFAULT_MAX_AHEAD } = options;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    throw invalid(`version must be a non-negative integer, got ${String(version)}`);
  }
  if (typeof typeField !== 'string' || typeField === '') throw invalid('typeField must be a non-empty string');
  if (ahead !== 'hold' && ahead !== 'apply') throw invalid(`ahead must be 'hold' or 'apply', got ${String(ahead)}`);
  if (typeof maxAhead !== 'number' || !(Number.isSafeInteger(maxAhead) || maxAhead === Infinity) || maxAhead < 0) {
    throw invalid(`maxAhead must be a non-negative integer or Infinity, got ${String(maxAhead)}`);
  }
  return { version, typeField, ahead, maxAhead, types: resolveTypes(options.types) };
}

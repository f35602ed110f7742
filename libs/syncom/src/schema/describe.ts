import { canonicalJson } from '../op';
import { loadSchemaPeers } from './peers';
import type { RecordClass } from './types';
import { platform } from '../platform';

/** One class-validator constraint as the schema hash sees it. */
export interface ConstraintDescription {
  property: string;
  type: string;
  name: string | null;
  constraints: unknown[];
  /** Present (true) only for `{ each: true }`, so plain constraints hash as `{ property, type, name, constraints }`. */
  each?: true;
}

/** A record type's canonical description: its constraints and its defaults. */
export interface TypeDescription {
  constraints: ConstraintDescription[];
  defaults: Record<string, unknown>;
}

/** A constraint argument as JSON: a RegExp reads as its source, a function (a class) as a marker, so class names do not count. */
function describeArgument(value: unknown): unknown {
  if (value instanceof RegExp) return String(value);
  if (typeof value === 'function') return '[function]';
  if (Array.isArray(value)) return value.map(describeArgument);
  return value;
}

function compareConstraints(a: ConstraintDescription, b: ConstraintDescription): number {
  const keyA = [a.property, a.name ?? '', a.type, canonicalJson(a)];
  const keyB = [b.property, b.name ?? '', b.type, canonicalJson(b)];
  for (let i = 0; i < keyA.length; i++) {
    if (keyA[i] !== keyB[i]) return keyA[i] < keyB[i] ? -1 : 1;
  }
  return 0;
}

/** The class-validator constraints of `cls` (inherited ones included), sorted by property then name. */
export function describeConstraints(cls: RecordClass): ConstraintDescription[] {
  const metadatas = loadSchemaPeers().validator.getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const out = metadatas.map((m): ConstraintDescription => {
    const d: ConstraintDescription = {
      property: m.propertyName,
      type: m.type,
      name: m.name ?? null,
      constraints: (m.constraints ?? []).map(describeArgument),
    };
    if (m.each) d.each = true;
    return d;
  });
  return out.sort(compareConstraints);
}

/**
 * The default values of `cls`: the own enumerable properties of `new cls()`,
 * as canonical JSON reads them.
 *
 * @throws TypeError when a default has no JSON form (a bigint, a cycle), or the constructor's own error.
 */
export function describeDefaults(cls: RecordClass): Record<string, unknown> {
  const instance = new cls();
  const out: Record<string, unknown> = JSON.parse(canonicalJson({ ...instance }));
  return out;
}

/** The description of one record type. @throws as {@link describeDefaults}. */
export function describeType(cls: RecordClass): TypeDescription {
  return { constraints: describeConstraints(cls), defaults: describeDefaults(cls) };
}

/**
 * Hex SHA-256 of `canonicalJson({ version, typeField, types })`, each type by
 * its description: the same classes give the same hash in every build, a new
 * constraint or another default gives another, the class names never count.
 *
 * @throws as {@link describeDefaults}.
 */
export function schemaHash(version: number, typeField: string, types: ReadonlyMap<string, RecordClass>): string {
  const described: Record<string, TypeDescription> = {};
  for (const [name, cls] of types) {
    Object.defineProperty(described, name, { value: describeType(cls), enumerable: true });
  }
  const text = canonicalJson({ version, typeField, types: described });
  return platform().sha256Hex(text);
}

import { canonicalJson } from '../op';
import { nestedClass } from './nested';
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

/** Where a property's value goes: classes by their index in the schema's walk (record types' classes first). */
export interface NestedDescription {
  class?: number;
}

/** A record type's or a reached class's description; `defaults` null where a reached class's cannot be built. */
export interface NestedClassDescription {
  constraints: ConstraintDescription[];
  defaults: Record<string, unknown> | null;
  /** Present only where the class reaches other classes. */
  nested?: Record<string, NestedDescription>;
}

/** A reached class's defaults: null where they cannot be built (a value of that class fails validation alike). */
function nestedDefaults(cls: RecordClass): Record<string, unknown> | null {
  try {
    return describeDefaults(cls);
  } catch {
    return null;
  }
}

/**
 * The record types described, and the classes they reach through `@Type`
 * (nested, in arrays, in Maps; not a discriminator's subtypes: see
 * nestedClass), each once however
 * often it is reached, so a class referring to itself ends the walk there.
 * A class is named by its index in the walk, never by its name: record
 * types' classes first, by type name, then breadth first, each class's
 * properties in sorted order. A reached class with no constraints and no defaults (a `Date`,
 * an empty class: it has no `@ValidateNested` either, so nothing below it is
 * checked) is left out, with the links to it; so a schema reaching no other
 * class is described exactly as before nested classes counted (no `nested`,
 * no `classes`), and its hash is unchanged.
 *
 * @throws as {@link describeDefaults}, for a record type's class.
 */
function describeSchema(types: ReadonlyMap<string, RecordClass>): { types: Record<string, NestedClassDescription>; classes: NestedClassDescription[] } {
  const order: RecordClass[] = [];
  const found: NestedClassDescription[] = [];
  const index = new Map<RecordClass, number | undefined>();
  const visit = (cls: RecordClass, record = false): number | undefined => {
    if (!index.has(cls)) {
      const d: NestedClassDescription = { constraints: describeConstraints(cls), defaults: record ? describeDefaults(cls) : nestedDefaults(cls) };
      const empty = !record && d.constraints.length === 0 && d.defaults !== null && Object.keys(d.defaults).length === 0;
      index.set(cls, empty ? undefined : found.push(d) - 1);
      if (!empty) order.push(cls);
    }
    return index.get(cls);
  };
  const names = [...types.keys()].sort();
  for (const name of names) visit(types.get(name)!, true);
  const records = found.length;
  // The walk appends the classes it reaches, so it ends once no new class turns up.
  for (let i = 0; i < found.length; i++) {
    const d = found[i];
    const links: [string, NestedDescription][] = [];
    for (const property of [...new Set([...d.constraints.map((c) => c.property), ...Object.keys(d.defaults ?? {})])].sort()) {
      const target = nestedClass(order[i], property);
      const to = target && visit(target);
      const link: NestedDescription = {};
      if (to !== undefined) link.class = to;
      if (Object.keys(link).length > 0) links.push([property, link]);
    }
    // fromEntries makes own properties, a property named __proto__ included.
    if (links.length > 0) d.nested = Object.fromEntries(links);
  }
  return { types: Object.fromEntries(names.map((name) => [name, found[index.get(types.get(name)!)!]])), classes: found.slice(records) };
}

/**
 * Hex SHA-256 of `canonicalJson({ version, typeField, types, classes })`:
 * each type by its description, and `classes` (present only when there are
 * any) the classes its records reach through `@Type`, nested classes'
 * constraints included (describeSchema). The same classes give the same hash
 * in every build, a new constraint or another default (of a record type or of
 * a class it reaches) gives another, the class names never count.
 *
 * @throws as {@link describeDefaults}.
 */
export function schemaHash(version: number, typeField: string, types: ReadonlyMap<string, RecordClass>): string {
  const { types: described, classes } = describeSchema(types);
  const text = canonicalJson(classes.length > 0 ? { version, typeField, types: described, classes } : { version, typeField, types: described });
  return platform().sha256Hex(text);
}

import { loadSchemaPeers } from './peers';
import { defineField, isPlainObject } from './plain';
import type { RecordClass } from './types';

/**
 * Past this many keys, an object is not handed whole to class-transformer:
 * its plainToInstance drops repeated keys of every object it copies with an
 * indexOf per key, quadratic in the object's keys (a peer's op of one nested
 * object of 40,000 keys held a node with a schema for 0.7 s, 150,000 for 9 s).
 */
export const WIDE = 256;

const declaredFields = new WeakMap<RecordClass, ReadonlySet<string>>();

/**
 * The fields class-validator can look at in an instance of `cls`: those its
 * decorators name (inherited ones too) and those its instances default. The
 * others are not validated (no whitelist, forbidUnknownValues off).
 */
export function declaredOf(cls: RecordClass): ReadonlySet<string> {
  let names = declaredFields.get(cls);
  if (!names) {
    const metas = loadSchemaPeers().validator.getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false);
    names = new Set([...metas.map((m) => m.propertyName), ...Object.keys(new cls() as object)]);
    declaredFields.set(cls, names);
  }
  return names;
}

/** The fields of `data` named in `names`, as own data properties. */
export function pickFields(data: Record<string, unknown>, names: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(data, name)) defineField(out, name, data[name]);
  return out;
}

/**
 * The key a stand-in carries through class-transformer; its value is a
 * symbol no data can hold, so a record's own key of this name is only data.
 */
const MARK = '\u0000syncom:wide';

/** A stand-in's token -> the wide object it stands for. */
type StoodIn = Map<symbol, Record<string, unknown>>;

/**
 * class-transformer's `plainToInstance(cls, source, { exposeDefaultValues: true })`
 * in time linear in `source`'s size. Every object of more than {@link WIDE} keys
 * below the top is handed over as a stand-in of one key (a marker) that still
 * answers reads of the object's keys (a discriminator's property, a @Transform
 * reading `obj.x`), then filled in the instance where the marker landed:
 * - as a plain object (no @Type): with all its keys, copied as class-transformer copies them;
 * - as an instance of a class: with the fields that class declares made by
 *   class-transformer from those fields only (recursively so), and its other
 *   keys copied as plain values.
 * `source` is a sanitized copy (sanitizeValue) and is changed in place.
 *
 * @throws Error where a wide object becomes a Map (a Map-typed field): its values' class cannot be told.
 */
export function transformNarrow(cls: RecordClass, source: Record<string, unknown>): object {
  const stood: StoodIn = new Map();
  for (const key of Object.keys(source)) defineField(source, key, narrow(source[key], stood));
  const instance = loadSchemaPeers().transformer.plainToInstance(cls, source, { exposeDefaultValues: true }) as object;
  if (stood.size > 0) fillHosts(instance, stood);
  return instance;
}

/** `value` with each wide object in it replaced by a stand-in (in place: `value` is a sanitized copy). */
function narrow(value: unknown, stood: StoodIn): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = narrow(value[i], stood);
    return value;
  }
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length > WIDE) return standIn(value, stood);
  for (const key of keys) defineField(value, key, narrow(value[key], stood));
  return value;
}

/**
 * An object whose only own key is the marker, for class-transformer to list;
 * reading, testing and deleting a key go to `wide` (class-transformer reads a
 * discriminator's property there and deletes it).
 */
function standIn(wide: Record<string, unknown>, stood: StoodIn): object {
  const token = Symbol('wide');
  stood.set(token, wide);
  const target: Record<string, unknown> = {};
  defineField(target, MARK, token);
  return new Proxy(target, {
    get: (t, key) => (Object.hasOwn(t, key) ? t[key as string] : Reflect.get(wide, key)),
    has: (t, key) => Object.hasOwn(t, key) || key in wide,
    deleteProperty: (t, key) => Reflect.deleteProperty(wide, key) && Reflect.deleteProperty(t, key),
  });
}

/** Finds each object of `root` that carries a marker, then fills it with what its wide object holds. */
function fillHosts(root: object, stood: StoodIn): void {
  const hosts: [Record<string, unknown>, Record<string, unknown>][] = [];
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    if (value instanceof Map) {
      const mark: unknown = value.get(MARK);
      if (typeof mark === 'symbol' && stood.has(mark)) throw new Error(`a Map-typed field of more than ${WIDE} entries is not validated`);
      for (const item of value.values()) stack.push(item);
    } else if (value instanceof Set) {
      for (const item of value) stack.push(item);
    } else if (!ArrayBuffer.isView(value)) {
      const record = value as Record<string, unknown>;
      const mark = Object.hasOwn(record, MARK) ? record[MARK] : undefined;
      const wide = typeof mark === 'symbol' ? stood.get(mark) : undefined;
      if (wide) hosts.push([record, wide]);
      for (const key of Object.keys(record)) stack.push(record[key]);
    }
  }
  for (const [host, wide] of hosts) fill(host, wide);
}

/** Fills `host`, the instance class-transformer made of a stand-in, with `wide`'s keys. */
function fill(host: Record<string, unknown>, wide: Record<string, unknown>): void {
  Reflect.deleteProperty(host, MARK);
  const cls = isPlainObject(host) ? undefined : ((host as object).constructor as RecordClass | undefined);
  const declared = typeof cls === 'function' ? declaredOf(cls) : new Set<string>();
  if (cls && declared.size > 0) {
    const made = transformNarrow(cls, pickFields(wide, declared)) as Record<string, unknown>;
    for (const key of Object.keys(made)) defineField(host, key, made[key]);
  }
  copyPlain(host, wide, declared);
}

/**
 * Copies `source`'s keys (but `skip`) onto `target` as class-transformer
 * copies a value of no @Type: plain objects and arrays at every depth, keys
 * that name a method or getter of the target's class left out, an undefined
 * value taking the target's own (its default).
 */
function copyPlain(target: Record<string, unknown>, source: Record<string, unknown>, skip: ReadonlySet<string>): void {
  const proto = (target.constructor as { prototype?: object } | undefined)?.prototype;
  for (const key of Object.keys(source)) {
    if (key === '__proto__' || key === 'constructor' || skip.has(key)) continue;
    const descriptor = proto ? Object.getOwnPropertyDescriptor(proto, key) : undefined;
    if ((descriptor && !descriptor.set) || target[key] instanceof Function) continue;
    const value = source[key];
    defineField(target, key, value === undefined ? target[key] : plainCopy(value));
  }
}

/** A value of no @Type as class-transformer copies it (see copyPlain). */
function plainCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainCopy);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  copyPlain(out, value, new Set());
  return out;
}

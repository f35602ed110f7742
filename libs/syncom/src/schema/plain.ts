/** Keys that reach an object's prototype or its class when assigned. */
const HOSTILE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** True for `{}` literals, JSON.parse output and null-prototype objects. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of a JSON-like value for class-transformer to read: plain objects and
 * arrays copied at every depth, without `__proto__`, `constructor` and
 * `prototype` keys (an own `constructor` would also steer class-validator's
 * metadata lookup) and without cyclic references. Other values are shared.
 */
export function sanitizeValue(value: unknown, ancestors: object[] = []): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  if (ancestors.includes(value)) return undefined;
  ancestors.push(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item) => sanitizeValue(item, ancestors));
  } else {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (!HOSTILE_KEYS.has(key)) copy[key] = sanitizeValue(value[key], ancestors);
    }
    out = copy;
  }
  ancestors.pop();
  return out;
}

/**
 * Sets `target[key] = value` as an own data property, so a `__proto__` key
 * stays a key instead of replacing the prototype.
 */
export function defineField(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A shallow copy of `data`'s own enumerable string keys, safe for any key name. */
export function copyFields(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(data)) defineField(out, key, data[key]);
  return out;
}

/** A default as plain JSON data: class instances, Dates and the like become what JSON makes of them. */
export function plainDefault(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

import { keyOrigin } from './types';

/**
 * Shape predicates for data that came from outside (a peer, a log line): they
 * read with typeof and own keys only, so hostile values cannot run code.
 */

/** Top-level field names that must never reach an object spread or assignment. */
export const FORBIDDEN_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/**
 * How deep a field value may nest: a register's value or a set element holds
 * at most 100 levels of arrays and objects (a scalar is 0, `[1]` is 1). Every
 * walk over a value (canonical JSON, JSON.stringify, structuredClone) recurses,
 * and a few thousand levels overflow the stack; 100 leaves them far apart.
 */
export const MAX_VALUE_DEPTH = 100;

/**
 * What one walk of a value finds, at its first fault: nesting past `max`
 * levels of arrays and objects ('deep'; a cycle reads as too deep), and with
 * `numbers` a number that is NaN or infinite ('number'), or else, the value
 * being fine but for it, a -0 ('-0'). Iterative, so a value nested 100,000
 * deep is measured without recursion. Reads own enumerable values only.
 */
export function valueShape(value: unknown, max: number, numbers = false): 'deep' | 'number' | '-0' | undefined {
  if (typeof value === 'number') return numbers ? numberShape(value) : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  let zero = false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [x, depth] = stack.pop() as [object, number];
    if (depth > max) return 'deep';
    for (const child of Array.isArray(x) ? x : Object.values(x)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
      else if (numbers && typeof child === 'number') {
        const found = numberShape(child);
        if (found === 'number') return found;
        zero ||= found === '-0';
      }
    }
  }
  return zero ? '-0' : undefined;
}

function numberShape(n: number): 'number' | '-0' | undefined {
  return !Number.isFinite(n) ? 'number' : Object.is(n, -0) ? '-0' : undefined;
}

/**
 * Whether a value nests at most `max` levels of arrays and objects
 * (valueShape); with `finite`, every number in it is finite too (what JSON
 * carries as it is).
 */
export function depthWithin(value: unknown, max: number, finite = false): boolean {
  const found = valueShape(value, max, finite);
  return found === undefined || found === '-0';
}

/** A string of 1 to `max` UTF-16 code units. */
export function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

/** A safe integer no smaller than `min`. */
export function isCount(value: unknown, min: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Unpadded base64url of exactly `length` characters. */
export function isBase64url(value: unknown, length: number): value is string {
  return typeof value === 'string' && value.length === length && BASE64URL.test(value);
}

/** An object made by a literal or JSON.parse (prototype Object.prototype or null), not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A plain object none of whose own keys is `__proto__`, `constructor` or `prototype`. */
export function isSafeRecord(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && !FORBIDDEN_KEYS.some((key) => Object.hasOwn(value, key));
}

/**
 * Whether a stream key's origin (an origin, or what precedes its '@' or '<')
 * names a member of Object.prototype (`__proto__`, `constructor`, `toString`,
 * ...): no op runs in such a stream (op/check.ts refuses the origin), and
 * where vectors are plain objects the key reads as that member. Every
 * check of an origin or a vector key from outside asks this.
 */
export function isPrototypeOrigin(key: string): boolean {
  return keyOrigin(key) in Object.prototype;
}

/** A version vector: a safe record of non-empty keys to non-negative safe integers, none of a stream no op runs in (isPrototypeOrigin). */
export function isVector(value: unknown): value is Record<string, number> {
  if (!isSafeRecord(value)) return false;
  for (const key of Object.keys(value)) {
    if (key.length === 0 || !isCount(value[key], 0) || isPrototypeOrigin(key)) return false;
  }
  return true;
}

/** A remove's value: an array of `[element, tags]` pairs, tags an array of strings. */
export function isRemoval(value: unknown): value is [unknown, string[]][] {
  if (!Array.isArray(value)) return false;
  // Array.from reads holes as undefined: Array#every would skip them, taking a sparse array.
  return Array.from(value).every(
    (pair) =>
      Array.isArray(pair) &&
      pair.length === 2 &&
      Array.isArray(pair[1]) &&
      Array.from(pair[1] as unknown[]).every((tag) => typeof tag === 'string'),
  );
}

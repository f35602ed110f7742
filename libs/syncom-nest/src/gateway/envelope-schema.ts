/**
 * The wire envelopes, each described once as a small schema that is both
 * its TypeScript type and its validator. A check reads each field of the
 * envelope once and copies the known ones into a fresh object (the
 * whitelist): its cost is linear in the envelope's size, it never
 * deep-copies, and a value it does not understand (a push's ops, a
 * reconcile message, a hello's vector) is handed on untouched for the
 * engine's own decoders to judge. No class-transformer copy of untrusted
 * input: class-transformer's copy of an object with many keys costs
 * superlinear time, seconds for a megabyte.
 */

/** Why a field or an envelope is refused (a value, not an exception: refusals are cheap). */
export class Refused {
  constructor(readonly why: string) {}
}

/** One field of an envelope: how it is read and whether it may be absent (null or undefined). */
export interface Field<T> {
  /** The field's value as handed on (the same value, or a whitelisted copy of a nested object), or why it is refused. */
  readonly read: (value: unknown, name: string) => T | Refused;
  readonly optional: boolean;
}

/** The envelope a reader makes, or why it refuses. */
export type Reading<T> = { ok: true; value: T } | { ok: false; why: string };

/** An envelope: its name (for messages) and its reader. */
export interface Envelope<T> {
  readonly name: string;
  /** The whitelisted envelope or a refusal; throws only on what no JSON makes (a getter or a proxy that throws), which the pipe refuses alike. */
  read(value: unknown): Reading<T>;
  /**
   * Its fields handed on as they came whose structure the engine decodes
   * (a reconcile message): the pipe bounds their depth before anything
   * walks them. Other fields are read at a fixed depth by the envelope
   * itself, or handed on for the engine to check item by item (a push's ops).
   */
  readonly deep: readonly string[];
}

/** The TypeScript type of an envelope. */
export type EnvelopeOf<E> = E extends Envelope<infer T> ? T : never;

type Shape = Record<string, Field<unknown>>;
type FieldType<F> = F extends Field<infer T> ? T : never;
type RequiredPart<S extends Shape> = { [K in keyof S as S[K]['optional'] extends true ? never : K]: FieldType<S[K]> };
type OptionalPart<S extends Shape> = { [K in keyof S as S[K]['optional'] extends true ? K : never]?: FieldType<S[K]> };
/** The object type a shape describes. */
export type ObjectOf<S extends Shape> = RequiredPart<S> & OptionalPart<S>;

/** A field that hands its value on as it is, once `why` finds nothing wrong. */
function field<T>(why: (value: unknown, name: string) => string | null): Field<T> & { optional: false } {
  return { optional: false, read: (v, n) => { const w = why(v, n); return w === null ? (v as T) : new Refused(w); } };
}

/** The same field, allowed to be absent or null (class-validator's @IsOptional()); a null one is handed on as absent. */
export function optional<T>(f: Field<T>): Field<T> & { optional: true } {
  return { read: f.read, optional: true };
}

/** A string of `min`..`max` UTF-16 code units. */
export function str(max: number, min = 0): Field<string> & { optional: false } {
  return field((v, n) => {
    if (typeof v !== 'string') return `${n} must be a string`;
    return v.length < min || v.length > max ? `${n} must be ${min}..${max} characters` : null;
  });
}

/** An integer, at least `min` when given. */
export function int(min = -Infinity): Field<number> & { optional: false } {
  return field((v, n) => (typeof v !== 'number' || !Number.isInteger(v) ? `${n} must be an integer` : v < min ? `${n} must not be less than ${min}` : null));
}

/** A boolean. */
export function bool(): Field<boolean> & { optional: false } {
  return field((v, n) => (typeof v === 'boolean' ? null : `${n} must be a boolean`));
}

/** An array of at most `max` strings, each of at most `itemMax` code units. */
export function strings(max: number, itemMax = Infinity): Field<string[]> & { optional: false } {
  return field((v, n) => {
    if (!Array.isArray(v)) return `${n} must be an array`;
    if (v.length > max) return `${n} must contain no more than ${max} elements`;
    for (let i = 0; i < v.length; i++) {
      const s: unknown = v[i];
      if (typeof s !== 'string') return `each value in ${n} must be a string`;
      if (s.length > itemMax) return `each value in ${n} must be at most ${itemMax} characters`;
    }
    return null;
  });
}

/** An object (no array, no null) handed on untouched: the engine decodes it. */
export function opaqueObject<T = Record<string, unknown>>(): Field<T> & { optional: false } {
  return field((v, n) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? null : `${n} must be an object`));
}

/** An array handed on untouched: the engine checks its items one by one (a push's ops). */
export function OpaqueArray<T = unknown>(): Field<T[]> & { optional: false } {
  return field((v, n) => (Array.isArray(v) ? null : `${n} must be an array`));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Reads the known fields of `source` into a fresh object; a field that fails refuses the whole. */
function readShape<S extends Shape>(shape: S, source: Record<string, unknown>, path: string): ObjectOf<S> | Refused {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const f = shape[key];
    const v = own(source, key) ? source[key] : undefined;
    if (v === undefined || v === null) {
      // An optional field that is null is left out, as if absent.
      if (!f.optional) return new Refused(`${path}${key} is missing`);
      continue;
    }
    const read = f.read(v, `${path}${key}`);
    if (read instanceof Refused) return read;
    out[key] = read;
  }
  return out as ObjectOf<S>;
}

/** A nested object of the given shape (class-validator's @ValidateNested() with its @Type()), whitelisted in turn. */
export function nested<S extends Shape>(shape: S): Field<ObjectOf<S>> & { optional: false } {
  return { optional: false, read: (v, n) => (isObject(v) ? readShape(shape, v, `${n}.`) : new Refused(`nested property ${n} must be an object`)) };
}

/**
 * An envelope described by its fields: a message that is no object, a field
 * missing or of the wrong type or size is refused; fields it does not name
 * are dropped unread (whitelist). No body at all is read as {}.
 */
export function envelope<S extends Shape>(name: string, shape: S, deep: readonly (keyof S & string)[] = []): Envelope<ObjectOf<S>> {
  return {
    name, deep,
    read: (value) => {
      const source = value === undefined || value === null ? {} : value;
      if (!isObject(source)) return { ok: false, why: 'the message must be an object' };
      const r = readShape(shape, source, '');
      return r instanceof Refused ? { ok: false, why: r.why } : { ok: true, value: r };
    },
  };
}

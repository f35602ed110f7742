import { SyncomError } from '../errors';
import { checkOptionShape, type OptionShape } from '../open-options';
import { type Entry, type Field, type FieldKind, isHidden, keyedGet, kindClashMessage, lazyRecord, seenTags } from '../crdt';
import { depthWithin, isSafeRecord, MAX_VALUE_DEPTH } from '../op/shape';
import { platform } from '../platform';
import type { OpType } from '../op/types';
import type { JudgeBudget, Schema, Validation } from '../schema/types';
import type { WriteOptions } from './options';
import { retypeView } from './retype-view';

/** What a local call asks the log for, before stamping and signing. */
export interface OpBody {
  type: OpType;
  id: string;
  data?: Record<string, unknown>;
  key?: string;
  value?: unknown;
}

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * `read()`, with whatever it throws that is no SyncomError (a caller's getter
 * or Proxy trap, JSON.stringify refusing a BigInt) as INVALID_ARGUMENT, the
 * original as `cause`: a wrong call gets a stable code, and it throws before
 * anything is made of it.
 * @throws SyncomError INVALID_ARGUMENT
 */
export function asInvalid<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof SyncomError) throw e;
    throw new SyncomError('INVALID_ARGUMENT', `${what}: ${messageOf(e)}`, { cause: e });
  }
}

function messageOf(e: unknown): string {
  // What was thrown is the caller's: its message may be a getter that throws too.
  try {
    return e instanceof Error ? e.message : String(e);
  } catch {
    return 'an unreadable error';
  }
}

/**
 * A JSON copy of one value (what the op carries: later changes to the
 * caller's value do not reach it), `wrapping` as for assertShallow.
 * @throws SyncomError INVALID_ARGUMENT for what JSON cannot carry or what throws as it is read.
 */
function jsonCopy(x: unknown, wrapping: number, what: string): unknown {
  return asInvalid(`${what} must be JSON`, () => {
    assertShallow(x, wrapping, what);
    const text = JSON.stringify(x);
    if (text === undefined) throw new SyncomError('INVALID_ARGUMENT', `${what} must be JSON, not undefined, a function or a symbol`);
    return JSON.parse(text) as unknown;
  });
}

/**
 * A JSON copy of a plain object of fields (what the op carries: later changes
 * to the caller's object do not reach it).
 * @throws SyncomError INVALID_ARGUMENT unless `x` is a plain object of JSON fields.
 */
export function copyFields(x: unknown, what: string): Record<string, unknown> {
  const flat = asInvalid(`${what} must be JSON`, () => flatCopy(x, what));
  if (flat) return flat;
  const copy = jsonCopy(x, 1, what);
  // A toJSON of the caller's object answers for it: what it gives must be fields too, or the op would carry
  // data a peer refuses as malformed, and every later op of this node would wait behind it there.
  if (!isSafeRecord(copy)) throw new SyncomError('INVALID_ARGUMENT', `${what} must be a plain object of fields, as JSON too`);
  return copy;
}

/**
 * The copy of a plain object whose every field is a string, a boolean, null or
 * a finite number (Number.isFinite is false for anything else), made field by
 * field: what the JSON round trip gives (the same keys in the same order, -0
 * as 0) at a sixth of its cost for ten such fields. Undefined when anything
 * else (a nested value, a Date, NaN, undefined, a toJSON) needs the round trip.
 * @throws SyncomError INVALID_ARGUMENT unless `x` is a plain object without a field named __proto__, constructor or prototype.
 */
function flatCopy(x: unknown, what: string): Record<string, unknown> | undefined {
  const plain = typeof x === 'object' && x !== null && !Array.isArray(x) && [Object.prototype, null].includes(Object.getPrototypeOf(x));
  if (!plain) throw new SyncomError('INVALID_ARGUMENT', `${what} must be a plain object of fields`);
  const out: Record<string, unknown> = {};
  let flat = !('toJSON' in x);
  for (const k of Object.keys(x)) {
    if (FORBIDDEN.has(k)) throw new SyncomError('INVALID_ARGUMENT', `${what} may not have a field named ${k}`, { field: k });
    if (!flat) continue;
    const v = (x as Record<string, unknown>)[k];
    if (typeof v === 'string' || typeof v === 'boolean' || v === null || Number.isFinite(v)) out[k] = v === 0 ? 0 : v;
    else flat = false;
  }
  return flat ? out : undefined;
}

/**
 * Throw unless a value nests at most MAX_VALUE_DEPTH levels below `wrapping`
 * (1 for a data object around its fields, 0 for a set element): a deeper one
 * would overflow the stack in the walks every op takes (canonical JSON for its
 * digest, at every peer that verifies it), so it is refused before it is an op.
 */
function assertShallow(x: unknown, wrapping: number, what: string): void {
  if (!depthWithin(x, MAX_VALUE_DEPTH + wrapping)) {
    throw new SyncomError('INVALID_ARGUMENT', `${what} nests deeper than ${MAX_VALUE_DEPTH} levels of arrays and objects`);
  }
}

/** Throw unless a counter or set field's name may be one (not __proto__, constructor or prototype). */
function assertFieldName(key: unknown): void {
  if (typeof key !== 'string') throw new SyncomError('INVALID_ARGUMENT', 'a field name is a string');
  if (FORBIDDEN.has(key)) throw new SyncomError('INVALID_ARGUMENT', `a field may not be named ${key}`, { field: key });
}

/** A write's options: the actor is checked where the op is made (make-op.ts), with open()'s. */
const WRITE_OPTIONS: OptionShape = { actor: ['a string', () => true], sealed: ['true or false', (x) => typeof x === 'boolean'] };

/**
 * A write's options, read once into a plain object. An unknown key is
 * refused, as open() refuses one: a misspelt `{ seald: true }` had written the
 * record unsealed, in clear, and replicated it; so is a `sealed` that is no
 * boolean (`'true'`, 1); a getter that throws is the caller's (asInvalid).
 * @throws SyncomError INVALID_ARGUMENT unless `o` is absent or an object of those options.
 */
export function writeOptions(o: unknown): WriteOptions | undefined {
  if (o === undefined || o === null) return undefined;
  if (typeof o !== 'object' || Array.isArray(o)) throw new SyncomError('INVALID_ARGUMENT', 'a write takes options { actor?, sealed? }');
  return asInvalid('the write options must be readable', () => {
    // Read once: the copy checked is the copy used.
    const read: WriteOptions = { ...o };
    checkOptionShape(read as Record<string, unknown>, WRITE_OPTIONS, 'a write');
    return { actor: read.actor, sealed: read.sealed };
  });
}

/** Throw unless `id` is a usable record id. */
export function assertId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > 512) {
    throw new SyncomError('INVALID_ARGUMENT', 'a record id is a string of 1-512 characters');
  }
}

/** Throw the kind clash error when `field` already is another kind (KIND-1, KIND-10..13). */
export function assertKind(e: Entry | undefined, field: string, want: FieldKind): void {
  const f = e && keyedGet(e.fields, field);
  if (f && f.k !== want) throw new SyncomError('KIND_CLASH', kindClashMessage(field, f.k), { field, kind: f.k });
}

/** The record as a local call finds it: throws NOT_FOUND for a missing or deleted one. */
export function existing(e: Entry | undefined, id: string): Entry {
  if (!e || isHidden(e)) throw new SyncomError('NOT_FOUND', `no record ${id}`, { id });
  return e;
}

/** The body of an inc() (KIND-14: creates a counter). */
export function incBody(e: Entry | undefined, id: string, key: string, by: unknown): OpBody {
  if (typeof by !== 'number' || !Number.isFinite(by)) throw new SyncomError('INVALID_ARGUMENT', 'inc() takes a finite number');
  assertFieldName(key);
  assertKind(existing(e, id), key, 'c');
  // -0 as 0, as JSON gives it: the log, a reopen and every peer read 0.
  return { type: 'inc', id, key, value: by === 0 ? 0 : by };
}

/** The body of an add() (KIND-14: creates a set). */
export function addBody(e: Entry | undefined, id: string, key: string, elements: unknown): OpBody {
  if (!Array.isArray(elements)) throw new SyncomError('INVALID_ARGUMENT', 'add() takes an array of elements');
  assertFieldName(key);
  const value = asInvalid('add() takes an array of elements', () => Array.from(elements, (x) => jsonCopy(x, 0, 'a set element')));
  assertKind(existing(e, id), key, 's');
  return { type: 'add', id, key, value };
}

/** The body of a remove(), naming the add tags seen; undefined when nothing was seen (KIND-20). */
export function removeBody(e: Entry | undefined, id: string, key: string, elements: unknown): OpBody | undefined {
  if (!Array.isArray(elements)) throw new SyncomError('INVALID_ARGUMENT', 'remove() takes an array of elements');
  assertFieldName(key);
  asInvalid('a set element must be JSON', () => elements.forEach((x) => assertShallow(x, 0, 'a set element')));
  if (!e || isHidden(e)) return undefined;
  assertKind(e, key, 's');
  const seen = asInvalid('a set element must be JSON', () => seenTags(e, key, elements));
  return seen.length ? { type: 'remove', id, key, value: seen } : undefined;
}

/**
 * Whether a local write to `id` is sealed (GUAR-19). A sealed record stays
 * sealed: every later write to it is, whatever it asks. An existing record
 * that is not sealed — a tombstone or purge marker included — cannot become
 * sealed: its earlier ops may already have left the node, and its values are
 * in clear in the log. Only a write that makes the record can seal it.
 *
 * @throws SyncomError NOT_SEALABLE for `{ sealed: true }` on an existing unsealed record.
 * @throws SyncomError UNSUPPORTED for a write that would be sealed where the platform cannot seal (a browser).
 */
export function sealsWrite(sealed: ReadonlySet<string>, id: string, e: Entry | undefined, asked: boolean | undefined): boolean {
  if (!sealed.has(id) && asked !== true) return false;
  // Refused before anything is made: the platform (the browser) has no sealing. A record sealed elsewhere included.
  if (!platform().sealing) throw new SyncomError('UNSUPPORTED', 'sealed records need Node.js', { id });
  if (sealed.has(id)) return true;
  if (e) throw new SyncomError('NOT_SEALABLE', `record ${id} exists unsealed (its values may have replicated): write a new record with { sealed: true }`, { id });
  return true;
}

/** Throw unless every field of an update() may be written as a register (KIND-10, KIND-11). */
export function assertRegisters(e: Entry | undefined, fields: Record<string, unknown>): void {
  for (const k of Object.keys(fields)) assertKind(e, k, 'r');
}

/**
 * The record's current fields merged with an update, for the scope
 * function: its fields read when touched (lazyRecord), so an update of a
 * record holding a large set does not read the set.
 */
export function mergedView(e: Entry | undefined, fields: Record<string, unknown>): Record<string, unknown> {
  return e && !isHidden(e) ? Object.assign(lazyRecord(e), fields) : { ...fields };
}

/**
 * What an update (a set op, local or a peer's) is validated as: the fields
 * it sets, under the record's type (its type field, unless the update sets
 * it), checked with skipMissingProperties as a PATCH body is. Not the record
 * with the update merged in: that cost every set the record's size (a
 * schema that checks a set of 100,000 elements read and checked it for each
 * update of another field, docs/security.md), and judged an update by fields
 * it does not touch.
 */
export function updateView(e: Entry | undefined, fields: Record<string, unknown>, typeField: string): Record<string, unknown> {
  if (Object.hasOwn(fields, typeField) || !e || isHidden(e)) return fields;
  const f = keyedGet(e.fields, typeField);
  return f ? { [typeField]: typeValue(f), ...fields } : fields;
}

/** A stand-in for a type field of a set or a counter: unequal to any value, and no type name. */
const NO_TYPE = Object.freeze({});

/**
 * The type field's value as far as a schema reads it: a register's value; a
 * set or a counter names no class (a type is a string), and is not read: a
 * set of 100,000 elements there was read whole at each update of the record.
 */
const typeValue = (f: Field): unknown => (f.k === 'r' ? f.val : NO_TYPE);

/**
 * What the schema says of an update (a set op, local or a peer's): by the
 * fields it sets (updateView), but an update that changes the record's type
 * is judged as a whole record of the new type, the record's other fields
 * included. Judged by its own fields, a change to a type with no class, then
 * fields the old type refuses, then a change back, left a record of the old
 * type that its schema refuses. A type change costs the record's size the
 * first time the record's state is judged as that type; the schema keeps the
 * verdict (schema/retype.ts), so flipping the type back and forth costs the
 * record's fields. No other update reads the record. `budget`: what judging
 * a type change anew is charged to (a host's peer's rate).
 * @throws what `budget.open()` throws.
 */
export function checkUpdate(schema: Schema, e: Entry | undefined, fields: Record<string, unknown>, budget?: JudgeBudget): Validation {
  const { typeField } = schema;
  const held = e && !isHidden(e) ? e : undefined;
  const present = held ? keyedGet(held.fields, typeField) : undefined;
  if (held && Object.hasOwn(fields, typeField) && fields[typeField] !== (present ? typeValue(present) : undefined)) {
    const errors = schema.judgeRetype(retypeView(held, fields), budget);
    return errors ? { ok: false, errors } : { ok: true, data: fields };
  }
  return schema.validateUpdate(updateView(e, fields, typeField));
}

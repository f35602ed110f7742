import { isScopeName } from './scope-name';
import { isMadeHere } from './made';
import { isScrubbed } from './payload';
import { FORBIDDEN_KEYS, isBase64url, isCount, isPlainObject, isPrototypeOrigin, isRemoval, isSafeRecord, isText, isVector, MAX_VALUE_DEPTH, valueShape } from './shape';
import { Op, OP_TYPES, OpType } from './types';

/** Why a peer's op was not taken; `code` is the SyncomError code to report. */
export interface Refusal {
  ok: false;
  code: 'OP_MALFORMED' | 'SKEW';
  reason: string;
}

/** A checked op, or why it was refused. */
export type OpCheck = { ok: true; op: Op } | Refusal;

/** Options of {@link checkOp}. */
export interface CheckOptions {
  /** This node's clock, ms since the epoch. Default Date.now(). */
  now?: number;
  /** How far ahead of `now` a ts may be; Infinity disables the check. Default 24 h. */
  maxSkew?: number;
}

/** sync.maxSkew's default: 24 hours (Guarantees and limits). */
export const DEFAULT_MAX_SKEW = 86_400_000;

/**
 * The latest stamp a peer's op, entry or tag may carry whatever maxSkew says
 * (Infinity included): the latest instant a Date holds. Taken, a stamp near
 * the top of the safe integers moved this node's clock there, and its own
 * next stamps ran past them, where no peer takes an op.
 */
export const MAX_TS = 8_640_000_000_000_000;

/** Whether a stamp seen from a peer is too far ahead to take: more than maxSkew past `now`, or past MAX_TS. */
export function tooFarAhead(ts: number, now: number, maxSkew: number): boolean {
  return ts - now > maxSkew || ts > MAX_TS;
}

type Rule = readonly [field: keyof Op, required: boolean, test: (value: unknown) => boolean, what: string];

const isType = (value: unknown): boolean => OP_TYPES.includes(value as OpType);
const isString = (value: unknown): boolean => typeof value === 'string';

const ORIGIN_SHAPE = "a string of 1-128 characters without '@' or '<', not a name of Object.prototype";
/** Whether `x` may be an op's origin or `from`: a node id as its ops carry it (ORIGIN_SHAPE). */
export const isOrigin = (x: unknown): x is string => isText(x, 128) && !/[@<]/.test(x) && !isPrototypeOrigin(x);

// Field shapes (GUAR-3). actor is a claim: carried as it is, a string only.
const RULES: readonly Rule[] = [
  // An origin keys version vectors (plain objects): one named like a member of Object.prototype
  // (__proto__, constructor, toString) would read as that member, so it is no origin. Nor may it
  // hold '@' or '<', which end an origin in a stream key (`origin@scope`, `key<from`): the origin
  // 'n@a' of a global op would run in node n's stream of scope a and take its seqs.
  ['origin', true, isOrigin, ORIGIN_SHAPE],
  ['seq', true, (x) => isCount(x, 1), 'a positive safe integer'],
  ['ts', true, (x) => isCount(x, 0), 'a non-negative safe integer'],
  ['type', true, isType, `one of ${OP_TYPES.join(', ')}`],
  ['id', true, (x) => isText(x, 512), 'a string of 1-512 characters'],
  // '<' starts a stream key's `<from` part: a scope holding one would read back as a shorter one (op/scope-name.ts).
  ['scope', false, isScopeName, "a string of 1-128 characters without '<' or control characters"],
  // A node's id, as an origin is: it ends the op's stream key (`key<from`), kept in every vector for good.
  // Any length, one push of 500 ops with 8,000-character ones put 4 MB of keys in the vectors every peer
  // is greeted with (test/hostile/from-shape.spec.ts).
  ['from', false, isOrigin, ORIGIN_SHAPE],
  ['v', false, (x) => isCount(x, 0), 'a non-negative safe integer'],
  ['actor', false, isString, 'a string'],
  ['data', false, isSafeRecord, 'a plain object without __proto__, constructor or prototype'],
  ['meta', false, isSafeRecord, 'a plain object without __proto__, constructor or prototype'],
  ['key', false, isString, 'a string'],
  ['value', false, () => true, 'anything'],
  ['vector', false, isVector, 'an object of non-negative safe integers, no key of an origin named like a member of Object.prototype'],
  ['sig', false, (x) => isBase64url(x, 86), '86 characters of base64url'],
  ['digest', false, (x) => isBase64url(x, 43), '43 characters of base64url'],
  ['nonce', false, (x) => isBase64url(x, 22), '22 characters of base64url'],
];

const needsData = (op: Op): string | undefined => (op.data === undefined ? 'data: required' : undefined);
const needsKey = (op: Op): string | undefined => (op.key === undefined ? 'key: required' : undefined);

// What each type must carry (Operations); a scrubbed op is exempt (SIG-11).
const PAYLOAD_RULES: Record<OpType, (op: Op) => string | undefined> = {
  write: needsData,
  set: needsData,
  merge: needsData,
  inc: (op) =>
    needsKey(op) ?? (typeof op.value === 'number' && Number.isFinite(op.value) ? undefined : 'value: a finite number'),
  add: (op) => needsKey(op) ?? (Array.isArray(op.value) ? undefined : 'value: an array of elements'),
  remove: (op) => needsKey(op) ?? (isRemoval(op.value) ? undefined : 'value: an array of [element, tags[]] pairs'),
  delete: noPayload,
  purge: noPayload,
  advance: (op) => (op.vector === undefined ? 'vector: required' : undefined),
};

/**
 * The levels a type's payload may nest around its field values (MAX_VALUE_DEPTH):
 * data `{ field: value }` adds 1, an add's `[element]` 1, a remove's
 * `[[element, tags]]` 2, a merge's entry `{ fields: { field: { val } } }` 3
 * (isEntry checks the values inside it).
 */
const WRAPPING: Partial<Record<OpType, number>> = { write: 1, set: 1, merge: 3, add: 1, remove: 2 };

/**
 * What a peer's op may not carry though a log entry of old may: a counter or
 * set key named __proto__, constructor or prototype, field values nested
 * deeper than MAX_VALUE_DEPTH (the local API refuses both, INVALID_ARGUMENT),
 * and payload numbers JSON does not carry (valueFault). Returns the fault, or
 * the op, with any payload field holding -0 copied to hold 0.
 */
function peerFault(op: Op): string | Op {
  if (op.key !== undefined && FORBIDDEN_KEYS.includes(op.key)) return `key: may not be ${op.key}`;
  if (isScrubbed(op)) return op;
  const max = MAX_VALUE_DEPTH + (WRAPPING[op.type] ?? 1);
  let out = op;
  for (const field of PAYLOAD) {
    const found = op[field] === undefined ? undefined : valueFault(op[field], max);
    if (typeof found === 'string') return `${field}: ${found}`;
    // The digest (canonical JSON) reads -0 as 0, and so do the log, a reopen and every peer the op is relayed
    // to: this node reads it so too. Refusing it would refuse an in-process peer's `-x` at x = 0.
    if (found === NEGATIVE_ZERO) out = { ...out, [field]: JSON.parse(JSON.stringify(op[field])) as unknown };
  }
  if (out !== op) shaped.add(out);
  return out;
}

const PAYLOAD = ['data', 'meta', 'value', 'vector'] as const;

/** What valueFault answers for a value whose only fault is a -0. */
const NEGATIVE_ZERO = Symbol('-0');

/**
 * What is wrong with a payload value, in one walk (valueShape): nesting
 * deeper than `max`, or a number that is NaN or infinite. JSON.parse makes
 * Infinity of 1e400, while the digest's canonical JSON reads it null, so
 * such an op verifies, yet this node would hold a value that its log, a
 * reopen and every relayed peer read as null. No honest node sends one:
 * JSON.stringify writes null. NEGATIVE_ZERO when the value is fine but for
 * a -0 (which JSON.parse keeps and JSON.stringify writes 0).
 */
function valueFault(value: unknown, max: number): string | typeof NEGATIVE_ZERO | undefined {
  const found = valueShape(value, max, true);
  if (found === 'deep') return `nests deeper than ${MAX_VALUE_DEPTH} levels`;
  if (found === 'number') return 'holds a number JSON does not carry (NaN or Infinity)';
  return found === '-0' ? NEGATIVE_ZERO : undefined;
}

// delete and purge: no payload, so no digest and no nonce (SIG-8).
function noPayload(op: Op): string | undefined {
  const carried = [op.data, op.meta, op.key, op.value, op.vector, op.nonce].some((x) => x !== undefined);
  return carried ? 'carries no payload or nonce' : undefined;
}

/**
 * Check a peer's op before anything reads it (Guarantees and limits; GUAR-3,
 * GUAR-4): every field's shape, what its type must carry, the key names and
 * value depths the local API refuses too, payload numbers JSON does not
 * carry, and a ts no more than `maxSkew` ahead of `now`. The op returned is
 * a fresh object holding only the known fields, a payload -0 as 0. Never throws.
 *
 * @example
 * const checked = checkOp(JSON.parse(line), { now: clock.now() });
 * if (!checked.ok) report(new SyncomError(checked.code, checked.reason));
 */
export function checkOp(value: unknown, options: CheckOptions = {}): OpCheck {
  const shaped = checkShape(value);
  if (!shaped.ok) return shaped;
  let checked: string | Op;
  try { checked = peerFault(shaped.op); } catch { checked = 'op: unreadable'; }
  return typeof checked === 'string' ? malformed(`${shaped.op.type}: ${checked}`) : checkSkew(checked, options);
}

/**
 * The ops checkShape made: fresh objects holding only known fields, each
 * judged already. A peer's op is checked when it is unpacked and again by the
 * apply pipeline (checkOp); the second check of one returns it as it is. No
 * peer holds a reference to them, and the engine does not change an op's
 * fields once made (a scrub or a signature makes a copy or an own op).
 */
const shaped = new WeakSet<object>();

/** The shape half of {@link checkOp}: no clock involved. Never throws. */
export function checkShape(value: unknown): OpCheck {
  if (typeof value === 'object' && value !== null && shaped.has(value)) return { ok: true, op: value as Op };
  try {
    // An op made here (in-process, e.g. another node's of this process) is a plain op on the marking prototype: copied below, unmarked.
    if (!isPlainObject(value) && !isMadeHere(value as Op)) return malformed('op: not a plain object');
    const fields = value as Record<string, unknown>;
    const op: Record<string, unknown> = {};
    // An indexed loop, not destructuring of each rule: every op a peer sends passes here, some twice.
    for (let i = 0; i < RULES.length; i++) {
      const rule = RULES[i];
      const x = fields[rule[0]];
      if (x === undefined ? rule[1] : !rule[2](x)) return malformed(`${rule[0]}: must be ${rule[3]}`);
      if (x !== undefined) op[rule[0]] = x;
    }
    return judged(op as unknown as Op);
  } catch {
    return malformed('op: unreadable');
  }
}

/**
 * checkShape of the op whose fields are `slots`, in the order of the shape
 * rules (origin .. nonce) but for the one slot at index `gap`, which holds no
 * field; a null or undefined slot is an absent field. What a packed op
 * unpacks to, checked and built in one pass instead of a fields object made
 * first and read again (every op a peer pushes passes here).
 */
export function checkSlots(slots: readonly unknown[], gap: number): OpCheck {
  try {
    const op: Record<string, unknown> = {};
    for (let i = 0; i < RULES.length; i++) {
      const rule = RULES[i];
      const x = slots[i < gap ? i : i + 1];
      const absent = x === null || x === undefined;
      if (absent ? rule[1] : !rule[2](x)) return malformed(`${rule[0]}: must be ${rule[3]}`);
      if (!absent) op[rule[0]] = x;
    }
    return judged(op as unknown as Op);
  } catch {
    return malformed('op: unreadable');
  }
}

/** The payload a type must carry, then the op marked as checked. */
function judged(op: Op): OpCheck {
  const fault = isScrubbed(op) ? undefined : PAYLOAD_RULES[op.type](op);
  if (fault !== undefined) return malformed(`${op.type}: ${fault}`);
  shaped.add(op);
  return { ok: true, op };
}

/** The clock half of {@link checkOp}: code SKEW when ts is more than maxSkew ahead of now. */
export function checkSkew(op: Op, options: CheckOptions = {}): OpCheck {
  const { now = Date.now(), maxSkew = DEFAULT_MAX_SKEW } = options;
  if (tooFarAhead(op.ts, now, maxSkew)) {
    return { ok: false, code: 'SKEW', reason: `ts ${op.ts} is more than ${maxSkew} ms ahead of ${now}${op.ts > MAX_TS ? ', or past the latest date' : ''}` };
  }
  return { ok: true, op };
}

function malformed(reason: string): Refusal {
  return { ok: false, code: 'OP_MALFORMED', reason };
}

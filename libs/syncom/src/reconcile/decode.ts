import { compareBounds, MIN_KEY, type Key } from './keys';
import {
  type Bound, type Message, MODE, type Range, RECONCILE_VERSION, type ReconcileRefusal, refuse, WIRE_LIMITS,
} from './types';

/** What decodeMessage returns: the message, rebuilt from checked parts, or a refusal. */
export type DecodeResult = { ok: true; message: Message } | ReconcileRefusal;

/** What one message may still hold of tags, items, give ids and want positions. */
interface Budget {
  ids: number;
}

const TAG = /^[A-Za-z0-9_-]{22}$/;
const isTag = (x: unknown): x is string => typeof x === 'string' && TAG.test(x);
const isId = (x: unknown): x is string => typeof x === 'string' && x.length > 0 && x.length <= WIRE_LIMITS.id;
const isIndex = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

/** A bound, or undefined when the value is none. */
function decodeBound(x: unknown): Bound | undefined {
  if (x === null) return null;
  if (!Array.isArray(x) || x.length !== 2) return undefined;
  const [ts, id] = x as unknown[];
  if (!isIndex(ts) || typeof id !== 'string' || id.length > WIRE_LIMITS.id) return undefined;
  return [ts, id];
}

/** A list payload's entries, checked one by one (for...of reads a sparse array's holes as undefined). */
function decodeEntries<T>(raw: unknown, budget: Budget, check: (x: unknown) => T | undefined): T[] | string {
  if (!Array.isArray(raw) || raw.length > WIRE_LIMITS.list) return `a list holds at most ${WIRE_LIMITS.list} entries`;
  if ((budget.ids -= raw.length) < 0) return 'the message lists too many ids';
  const out: T[] = [];
  for (const x of raw as unknown[]) {
    const v = check(x);
    if (v === undefined) return 'a list holds an entry of the wrong shape';
    out.push(v);
  }
  return out;
}

const asTag = (x: unknown) => (isTag(x) ? x : undefined);
const asItem = (x: unknown): [string, string] | undefined =>
  Array.isArray(x) && x.length === 2 && isId(x[0]) && isTag(x[1]) ? [x[0], x[1]] : undefined;

function decodeTags(upper: Bound, raw: unknown, budget: Budget): Range | string {
  const tags = decodeEntries(raw, budget, asTag);
  return typeof tags === 'string' ? tags : [upper, MODE.tags, tags];
}

function decodeItems(upper: Bound, raw: unknown, budget: Budget): Range | string {
  const items = decodeEntries(raw, budget, asItem);
  return typeof items === 'string' ? items : [upper, MODE.items, items];
}

function decodeDiff(upper: Bound, give: unknown, want: unknown, budget: Budget): Range | string {
  // Indexed loops, not every(): every() steps over the holes of a sparse array.
  if (!Array.isArray(give) || give.length > WIRE_LIMITS.give) return `give is no list of at most ${WIRE_LIMITS.give} ids`;
  if ((budget.ids -= give.length) < 0) return 'the message lists too many ids';
  for (let k = 0; k < give.length; k++) if (!isId(give[k])) return 'give holds something that is no id';
  if (!Array.isArray(want) || want.length > WIRE_LIMITS.list) return `want is no list of at most ${WIRE_LIMITS.list} positions`;
  if ((budget.ids -= want.length) < 0) return 'the message lists too many ids';
  // Strictly increasing positions: each item is named once, and the list has one spelling.
  for (let k = 0; k < want.length; k++) {
    if (!isIndex(want[k]) || (k > 0 && want[k] <= want[k - 1])) return 'want is no increasing list of positions';
  }
  return [upper, MODE.diff, [...give] as string[], [...want] as number[]];
}

/** One range, rebuilt, or why it is none. */
function decodeRange(raw: unknown, budget: Budget): Range | string {
  if (!Array.isArray(raw) || raw.length < 2 || raw.length > 4) return 'a range is [upper, mode, ...payload]';
  const upper = decodeBound(raw[0]);
  if (upper === undefined) return `the upper bound is neither null nor [ts, id] (id of at most ${WIRE_LIMITS.id} characters)`;
  const size = raw.length;
  switch (raw[1]) {
    case MODE.skip: return size === 2 ? [upper, MODE.skip] : 'a skip has no payload';
    case MODE.fingerprint: return size === 3 && isTag(raw[2]) ? [upper, MODE.fingerprint, raw[2]] : 'a fingerprint is 22 base64url characters';
    case MODE.tags: return size === 3 ? decodeTags(upper, raw[2], budget) : 'a tags range is [upper, 2, tags]';
    case MODE.items: return size === 3 ? decodeItems(upper, raw[2], budget) : 'an items range is [upper, 3, items]';
    case MODE.diff: return size === 4 ? decodeDiff(upper, raw[2], raw[3], budget) : 'a diff range is [upper, 4, give, want]';
    case MODE.defer: return size === 2 && upper === null ? [null, MODE.defer] : 'a defer is [null, 5] and ends the message';
    default: return 'the mode is none of 0-5';
  }
}

/** Why a range's upper bound is out of order after `prev`, or null. */
function orderFault(upper: Bound, prev: Key, last: boolean): string | null {
  if (last) return upper === null ? null : 'the last range must end at null';
  if (upper === null) return 'only the last range ends at null';
  return compareBounds(upper, prev) > 0 ? null : 'bounds must increase strictly';
}

function decodeChecked(input: unknown): DecodeResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return refuse('a message is an object { v, ranges }');
  const { v, ranges: raw } = input as { v?: unknown; ranges?: unknown };
  if (v !== RECONCILE_VERSION) {
    return refuse(typeof v === 'number' ? `version ${v} is not spoken here (${RECONCILE_VERSION} is)` : 'the version v is missing');
  }
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > WIRE_LIMITS.ranges) return refuse(`ranges is no list of 1-${WIRE_LIMITS.ranges} ranges`);
  const ranges: Range[] = [];
  const budget = { ids: WIRE_LIMITS.ids };
  let prev: Key = MIN_KEY;
  for (let k = 0; k < raw.length; k++) {
    const r = decodeRange(raw[k], budget);
    if (typeof r === 'string') return refuse(`range ${k}: ${r}`);
    const fault = orderFault(r[0], prev, k === raw.length - 1);
    if (fault) return refuse(`range ${k}: ${fault}`);
    if (r[0] !== null) prev = r[0];
    ranges.push(r);
  }
  return { ok: true, message: { v: RECONCILE_VERSION, ranges } };
}

/**
 * Check an untrusted reconciliation message (from JSON or anything else) and
 * rebuild it from its checked parts. Never throws: a value that is no
 * message, breaks a wire limit or cannot even be read (a throwing getter, a
 * revoked proxy) is a RECONCILE_MALFORMED refusal with the reason.
 * @example
 * const d = decodeMessage(JSON.parse(text));
 * if (!d.ok) report(d.reason);
 */
export function decodeMessage(input: unknown): DecodeResult {
  try {
    return decodeChecked(input);
  } catch {
    return refuse('the message could not be read');
  }
}

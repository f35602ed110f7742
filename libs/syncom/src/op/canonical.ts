/**
 * The canonical JSON text of a value: what JSON.stringify gives, except that
 * object keys are sorted by UTF-16 code units at every depth. No whitespace.
 *
 * It digests every op's payload (Signatures), so it is one recursive walk that
 * builds the text directly: no replacer, no sorted copies of the objects.
 * Members whose value is undefined, a function or a symbol are omitted (in an
 * array they read null), non-finite numbers read null and `toJSON` is honoured,
 * all as JSON.stringify does. A top-level undefined reads `null`.
 *
 * @throws TypeError on a cycle or a bigint, as JSON.stringify does.
 * @example
 * canonicalJson({ b: 1, a: [true, { d: null, c: 'x' }] }) // '{"a":[true,{"c":"x","d":null}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return encodeValue(value, []) ?? 'null';
}

/**
 * canonicalJson of an object holding `source`'s members named in `sorted`
 * (names already in code-unit order) that are not undefined, without making
 * that object: an op's payload is digested on every op signed or verified.
 */
export function canonicalPick(source: object, sorted: readonly string[]): string {
  return encodeMembers(source, sorted, []);
}

/** The text of one value, or undefined where JSON.stringify would omit it. */
function encodeValue(value: unknown, ancestors: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return value === null ? 'null' : encodeObject(value, ancestors);
    case 'bigint':
      throw new TypeError('canonicalJson: a bigint has no JSON form');
    default:
      return undefined;
  }
}

/** Arrays, plain objects, boxed primitives and objects with toJSON. */
function encodeObject(value: object, ancestors: object[]): string | undefined {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return encodeValue(toJSON.call(value), ancestors);
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return encodeValue(value.valueOf(), ancestors);
  }
  if (ancestors.includes(value)) throw new TypeError('canonicalJson: the value is cyclic');
  ancestors.push(value);
  const text = Array.isArray(value) ? encodeArray(value, ancestors) : encodeMembers(value, sortKeys(Object.keys(value)), ancestors);
  ancestors.pop();
  return text;
}

function encodeArray(items: unknown[], ancestors: object[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += encodeValue(items[i], ancestors) ?? 'null';
  }
  return out + ']';
}

/** The members named in `keys` (in that order) whose values have a JSON form. */
function encodeMembers(value: object, keys: readonly string[], ancestors: object[]): string {
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of keys) {
    const text = encodeValue(record[key], ancestors);
    if (text === undefined) continue;
    out += (out.length === 1 ? '' : ',') + quotedKey(key) + ':' + text;
  }
  return out + '}';
}

/** Member names quoted so far (short ones only, at most QUOTED_LIMIT of them). */
const quoted = new Map<string, string>();
const QUOTED_LIMIT = 4096;
const QUOTED_LENGTH = 64;

/**
 * JSON.stringify(key), remembered: a payload's field names repeat from op to
 * op, and a host digests every op it verifies, so each name is quoted once
 * instead of at every member (a call into JSON.stringify costs more than the
 * lookup). Bounded, since the names come from peers: past the limit, or for
 * a long name, the key is quoted each time as before.
 */
function quotedKey(key: string): string {
  let text = quoted.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (key.length <= QUOTED_LENGTH && quoted.size < QUOTED_LIMIT) quoted.set(key, text);
  }
  return text;
}

/** Keys up to this many are sorted by insertion: for a record's few fields, several times faster than Array#sort. */
const SMALL = 16;

/**
 * Sorts keys by UTF-16 code units in place: `>` compares strings so, as
 * Array#sort without a comparator does (which takes the larger lists).
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > SMALL) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  return keys;
}

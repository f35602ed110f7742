/** Past this nesting the bound gives up (Infinity): the caller measures the exact text instead. */
const MAX_DEPTH = 64;

/** The longest JSON a finite number takes ("-1.2345678901234567e-308"). */
const NUMBER_MAX = 24;

/**
 * An upper bound of the UTF-8 bytes of `JSON.stringify(value)`, without
 * making the text: a string counts 6 bytes a UTF-16 unit (the widest
 * escape, \u001f; no character takes more in UTF-8) and its quotes, a
 * number 24. A snapshot page only needs its exact size once the bounds of
 * its entries pass the page's byte limit (4 MB by default, pages of 500
 * entries rarely near it): stringifying every record to measure it cost
 * as much as the page's own encoding on the link. Infinity past 64 levels
 * or for what JSON gives no text of (a caller then measures exactly).
 */
export function jsonBytesBound(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string': return 6 * value.length + 2;
    case 'number': return NUMBER_MAX;
    case 'boolean': return 5;
    case 'object': return value === null ? 4 : depth >= MAX_DEPTH ? Infinity : containerBound(value, depth + 1);
    default: return Infinity;
  }
}

function containerBound(value: object, depth: number): number {
  if (Array.isArray(value)) {
    let n = 2;
    for (const x of value) n += jsonBytesBound(x, depth) + 1;
    return n;
  }
  // An object with its own toJSON (a Date) is written as what it returns: measured exactly instead.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return Infinity;
  let n = 2;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    n += 6 * key.length + 4 + jsonBytesBound((value as Record<string, unknown>)[key], depth);
  }
  return n;
}

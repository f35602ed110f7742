import { BadRequestException } from '@nestjs/common';
import { parse, unescape } from 'node:querystring';
import { isPrototypeName } from '../prototype-keys';

/** A UTF-16 surrogate that is not half of a pair: text no UTF-8 (so no percent-encoding) can carry. */
const LONE_SURROGATE = /([\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF])/;

/** One surrogate as the three bytes UTF-8 would give it were it a character (WTF-8), percent-encoded: `%ED%A0%80` for U+D800. */
function escapedSurrogate(unit: number): string {
  const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
  return bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
}

/**
 * A record id as a query value (`?after=`) that parseQuery gives back exactly. A record id is any text, a
 * peer's lone surrogate included, which encodeURIComponent refuses (URIError: GET /notes answered 500); such a
 * surrogate is written as WTF-8 (`%ED%A0%80`), everything else as encodeURIComponent writes it.
 *
 * @example idQueryText('b\uD800') // 'b%ED%A0%80'
 */
export function idQueryText(id: string): string {
  return id.split(LONE_SURROGATE).map((part, i) => (i % 2 === 0 ? encodeURIComponent(part) : escapedSurrogate(part.charCodeAt(0)))).join('');
}

/** A query component decoded as querystring does, its WTF-8 surrogates (idQueryText's) first. */
function decodeComponent(text: string): string {
  return unescape(text.replace(/%ED%([AB][0-9A-F])%([89AB][0-9A-F])/gi, (_, b2: string, b3: string) => String.fromCharCode(0xd000 | ((parseInt(b2, 16) & 0x3f) << 6) | (parseInt(b3, 16) & 0x3f))));
}

/**
 * Express's query parser for this app: its default ('simple', node's querystring, at most 1,000 keys), but a
 * surrogate idQueryText wrote comes back as itself, not as three U+FFFD, and a key named as one of
 * Object.prototype's (`__proto__`, `constructor`, `toString`...) is refused 400: the ValidationPipe's copy into
 * the query's class dropped or hid some of them, so `?__proto__=1` was answered 200 where any other unknown key
 * is refused. Express reads the query when the route asks for it, inside Nest's handling, so the throw is a 400.
 * @throws BadRequestException.
 */
export function parseQuery(query: string): Record<string, unknown> {
  const q = parse(query, '&', '=', { decodeURIComponent: decodeComponent });
  const odd = Object.keys(q).find(isPrototypeName);
  if (odd !== undefined) throw new BadRequestException(`query key ${JSON.stringify(odd.slice(0, 40))} is not one this route takes`);
  return q;
}

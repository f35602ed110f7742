import { type OpTexts, PAGE_BYTES } from './page-text';

/**
 * A page's JSON as UTF-8 bytes made in advance, for the one transport that
 * asks (syncom-nest's gateway, page-message.ts, by PAGE_BYTES): Node's
 * platform attaches it (encodePage), the browser's leaves it out, as no
 * browser transport reads it. The ops' bytes of a read are made once and
 * only when a page needs them: every op stringified and encoded once,
 * joined by commas, with where each op starts. A page's ops' bytes are cut
 * from them, one view per run of consecutive ops (a writer's page leaves
 * out only its own ops). The gateway writes them as they are at a page's
 * first send and joins them into one Buffer only for a page sent again.
 */

const utf8 = new TextEncoder();
const OPEN = utf8.encode('{"ops":[');
const COMMA = utf8.encode(',');

/** A read's ops' bytes and where op i's start; starts[n] is one past the end (as if a comma followed). */
interface ReadBytes {
  bytes: Uint8Array;
  starts: number[];
}

const encoded = new WeakMap<OpTexts, ReadBytes>();

/** Attach to `page`, the ops of `texts` at `at` after `prev`, the function making its JSON's bytes (non-enumerable: its shape, equality and JSON stay). */
export function encodePage(page: { prev: string }, texts: OpTexts, at: readonly number[]): void {
  const value = () => [OPEN, ...pieces(texts, at), utf8.encode(`],"prev":${JSON.stringify(page.prev)}}`)];
  Object.defineProperty(page, PAGE_BYTES, { value });
}

/** The bytes of the ops at `at` (ascending indices into the read) joined as in a page's array, in parts. */
function pieces(texts: OpTexts, at: readonly number[]): Uint8Array[] {
  let read = encoded.get(texts);
  if (!read) encoded.set(texts, (read = encode(texts)));
  const { bytes, starts } = read;
  const out: Uint8Array[] = [];
  for (let j = 0; j < at.length;) {
    let k = j;
    while (k + 1 < at.length && at[k + 1] === at[k] + 1) k++;
    if (j > 0) out.push(COMMA);
    out.push(bytes.subarray(starts[at[j]], starts[at[k] + 1] - 1));
    j = k + 1;
  }
  return out;
}

function encode(texts: OpTexts): ReadBytes {
  const all = texts.relevant.map((_, i) => utf8.encode(JSON.stringify(texts.op(i))));
  const starts: number[] = [];
  let at = 0;
  for (const t of all) {
    starts.push(at);
    at += t.length + 1;
  }
  starts.push(at);
  const bytes = new Uint8Array(Math.max(0, at - 1));
  for (let i = 0; i < all.length; i++) {
    bytes.set(all[i], starts[i]);
    if (i + 1 < all.length) bytes[starts[i + 1] - 1] = COMMA[0];
  }
  return { bytes, starts };
}

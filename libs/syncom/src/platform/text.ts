/** Encodings without Buffer, for the browser (Node's platform uses Buffer's native ones). */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;
// Node's decoder takes standard base64 too: '+' and '/' read as '-' and '_'.
VALUE[43] = 62;
VALUE[47] = 63;

/** base64url without padding. */
export function toBase64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) out += ALPHABET[bytes[i] >> 2] + ALPHABET[(bytes[i] & 3) << 4];
  if (rest === 2) {
    const n = (bytes[i] << 8) | bytes[i + 1];
    out += ALPHABET[n >> 10] + ALPHABET[(n >> 4) & 63] + ALPHABET[(n & 15) << 2];
  }
  return out;
}

/**
 * Bytes of a base64url (or base64) text, as Node's decoder reads it: characters
 * outside the alphabet are skipped, '=' ends the text, a trailing partial group
 * keeps its whole bytes. Callers that need one encoding compare the re-encoding.
 */
export function fromBase64url(text: string): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3);
  let n = 0;
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 61) break;
    const v = c < 128 ? VALUE[c] : -1;
    if (v < 0) continue;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out.slice(0, n);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of a text (lone surrogates as U+FFFD, as Buffer does). */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);
/** The text of UTF-8 bytes. */
export const fromUtf8 = (bytes: Uint8Array): string => decoder.decode(bytes);

/** UTF-8 length of a text, counted without encoding it (a lone surrogate counts 3, as U+FFFD). */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += (b < 16 ? '0' : '') + b.toString(16);
  return out;
}

/** A PEM text of DER bytes, as Node writes it: 64-character lines, a final newline. */
export function toPem(der: Uint8Array, label: string): string {
  const b64 = toBase64url(der).replace(/-/g, '+').replace(/_/g, '/');
  const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
  const lines = padded.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The DER bytes of a PEM text with `label`, or undefined when it is not one. */
export function fromPem(pem: string, label: string): Uint8Array | undefined {
  if (typeof pem !== 'string') return undefined;
  const m = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(pem);
  return m ? fromBase64url(m[1].replace(/\s+/g, '')) : undefined;
}

/** The bytes of several arrays, one after another. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A text's UTF-16 code units, little-endian. */
export function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[2 * i] = c & 0xff;
    out[2 * i + 1] = c >>> 8;
  }
  return out;
}

import type { Backend } from '../backend/types';
import { platform } from '../platform';

/**
 * A record file's sum (docs/guarantees.md, "A store damaged after the
 * fact"): since store format 2 the last element of every record file is
 * `{"sum":"<SHA-256 of the text of the elements before it, base64url>"}`.
 * Without it, a value changed inside a record file that kept its JSON valid
 * was loaded as written, and a merge carried it on into a new file.
 */
const SUM_HEAD = '{"sum":"';
/** The sum element's length: the head, 43 base64url characters, `"}`. */
const SUM_LENGTH = SUM_HEAD.length + 43 + 2;

/** `text` (a record file's JSON array) with its sum as the last element. */
export function summed(text: string): string {
  const body = text.slice(1, -1);
  return `[${body}${body === '' ? '' : ','}${SUM_HEAD}${platform().sha256Parts([body])}"}]`;
}

/**
 * A record file's elements as a JSON array, its sum taken off; undefined
 * when the sum does not hold (the file changed after it was written). A
 * file without one (format 1, or no record file at all) is returned as read.
 */
export function unsummed(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const at = text.length - 1 - SUM_LENGTH;
  if (at < 1 || !text.endsWith('"}]') || !text.startsWith(SUM_HEAD, at)) return text;
  if (at > 1 && text[at - 1] !== ',') return text;
  const body = text.slice(1, Math.max(1, at - 1));
  return text.slice(at + SUM_HEAD.length, text.length - 3) === platform().sha256Parts([body]) ? `[${body}]` : undefined;
}

/** Write the record file at `path` holding `text` (a JSON array), summed. */
export function writeRecordFile(backend: Backend, path: string, text: string, durable: boolean): Promise<void> {
  return backend.write(path, summed(text), { durable });
}

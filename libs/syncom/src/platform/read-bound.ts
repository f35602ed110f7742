import { SyncomError } from '../errors';
import { platform } from './index';

/**
 * Heap a parsed JSON value may take beside its text, at most: an object with
 * its slot in the array or object holding it. The engine's own files run
 * some 15 characters a value (a 43-character origin in every stamp); a file
 * of `{},` repeated runs 3, and 64 MB of it took more than 512 MB to parse.
 */
export const VALUE_HEAP = 64;

/** Below this a file is read and parsed as it is: no file this small can take a heap's room. */
export const CHECKED_FROM = 1 << 20;

/** JSON values in a text, counted by their separators and openers outside strings: what JSON.parse would build. */
export function jsonValues(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2c || c === 0x7b || c === 0x5b) n++;
    else if (c === 0x22) {
      // Skip the string: to the next quote not escaped (an odd run of backslashes before it escapes it).
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return n;
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    }
  }
  return n;
}

const mb = (bytes: number) => `${Math.ceil(bytes / 2 ** 20)} MB`;

function tooLarge(path: string, what: string, room: number): SyncomError {
  return new SyncomError('STORE_DAMAGED', `${path}: ${what}, past the ${mb(room)} of heap left: not read, its parse would end the process. `
    + 'Garbage or a file put there by hand (restore it or move it away), or a store past this heap (node --max-old-space-size)', { file: path });
}

/**
 * Refuse a file of `bytes` whose text alone would not fit in the heap left,
 * before it is read (node:fs and OPFS know a file's size first).
 * @throws SyncomError STORE_DAMAGED naming the file.
 */
export function checkReadSize(path: string, bytes: number, heapRoom = () => platform().heapRoom?.()): void {
  if (bytes < CHECKED_FROM) return;
  const room = heapRoom();
  if (room !== undefined && 2 * bytes > room) throw tooLarge(path, `a file of ${mb(bytes)}`, room);
}

/**
 * Refuse a file's text whose parse would take more heap than is left: its
 * text again, and VALUE_HEAP a value. Values are counted only where the
 * text could hold enough of them to matter (one every two characters at
 * most), so an open of ordinary files pays one comparison a file.
 * @throws SyncomError STORE_DAMAGED naming the file.
 */
export function checkReadCost(path: string, text: string, heapRoom = () => platform().heapRoom?.()): void {
  if (text.length < CHECKED_FROM) return;
  const room = heapRoom();
  if (room === undefined) return;
  if (2 * text.length + (text.length / 2) * VALUE_HEAP <= room) return;
  const values = jsonValues(text);
  if (2 * text.length + values * VALUE_HEAP > room) throw tooLarge(path, `${mb(text.length)} of text holding ${values} JSON values`, room);
}

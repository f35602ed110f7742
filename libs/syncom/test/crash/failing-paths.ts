import type { MemoryBackend } from '../../src/backend';
import type { Backend } from '../../src/backend/types';
import type { Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';

/** The text a purged record held: no file may hold it once its scrub is done. */
export const SECRET = 'SECRET-OF-X';

/** The files of `b` that hold SECRET. */
export const holding = (b: MemoryBackend): string[] => [...b.files()].filter(([, t]) => t.includes(SECRET)).map(([p]) => p);

/**
 * `b`, whose `op` ('write' or 'remove') of a path `fails` picks is refused
 * with `code` (as node:fs words it) while `failing.on`.
 */
export function failingPaths(b: MemoryBackend, failing: { on: boolean }, op: 'write' | 'remove', fails: (path: string) => boolean, code = 'EIO'): Backend {
  const refuse = (path: string) => Promise.reject(Object.assign(new Error(`${code}: ${code === 'EIO' ? 'i/o error' : 'resource busy or locked'}, ${op === 'write' ? 'open' : 'unlink'} '${path}'`), { code }));
  return new Proxy(b, {
    get: (t, k) => (k === op
      ? (path: string, ...rest: unknown[]) => (failing.on && fails(path) ? refuse(path) : (t[op] as (...a: unknown[]) => Promise<void>)(path, ...rest))
      : Reflect.get(t, k)),
  });
}

/** Let the disk take writes again, write once more: the scrub that waited is done by then, and close() keeps it so. */
export async function scrubbedAtNextWrite(s: Storage, b: MemoryBackend, failing: { on: boolean }): Promise<void> {
  failing.on = false;
  await s.set('next', { n: 1 });
  await internals(s).committer.idle();
  expect(holding(b)).toEqual([]);
  await s.close();
  expect(holding(b)).toEqual([]);
}

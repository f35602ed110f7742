import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * The JS heap in use after full collections, in bytes, for leak checks in
 * tests and benchmarks. Neither jest's node nor the bench runs with
 * --expose-gc: the flag is set at run time and gc taken from a new context,
 * where V8 installs it.
 */
export function heapAfterGc(): number {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

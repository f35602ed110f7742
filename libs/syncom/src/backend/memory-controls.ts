import { createMemoryDisk } from './memory-backend';
import type { MemoryBackendOptions, MemoryDisk } from './memory-backend';
import { damageSnapshot } from './memory-damage';
import type { CrashDamage } from './memory-damage';
import { createFaults } from './memory-faults';
import type { CrashAtOptions, FailAtOptions, MemoryOp } from './memory-faults';

const DEFAULT_SEED = 0x5eed;

/** The in-memory backend with its test controls. */
export interface MemoryBackend extends MemoryDisk {
  /**
   * Crash the process: this backend is dead (every later call throws ECRASH),
   * and the returned new one holds what survived `damage` (default 'none').
   */
  crash(damage?: CrashDamage, seed?: number): MemoryBackend;
  /**
   * The k-th counted operation from now (1-based) fails with `code`; see FailAtOptions.
   * A read, list, exists or mkdir so failed rejects with IO_ERROR naming the path, the
   * error with `code` its cause, as the fs backend's do; any other with the error itself.
   * A failed 'fsync' of a write leaves the file as it was (the temp file is
   * dropped); of an overwrite or an `inPlace` write, the new bytes stay in place, not durable;
   * of an append, the file is cut back to what it held before (as the fs backend does).
   */
  failAt(k: number, options?: FailAtOptions): void;
  /**
   * The k-th counted operation from now (default: mutating ones; `{ ops: IO_POINTS }`
   * adds fsyncs), and every operation after it, throws ECRASH, taking no effect.
   */
  crashAt(k: number, options?: CrashAtOptions): void;
  /** Cancel failAt and a pending crashAt; a crash that happened stays (reopen with `crash()`). */
  clearFaults(): void;
  /** Operations attempted so far, failed ones included: by default the mutating ones (write, overwrite, remove, mkdir). */
  opCount(ops?: readonly MemoryOp[]): number;
  /** Whether this backend is dead: a crashAt fired or crash() was called. */
  isCrashed(): boolean;
}

/**
 * An in-memory Backend for tests: visible files, a durability model with
 * crash damage, and fault injection. Every method is async and yields before
 * it takes effect, so concurrent callers interleave as over real I/O. Node's
 * entry and `syncom/testing` export it; the browser's has the memory disk
 * alone (memory-backend.ts), which keeps these controls out of its bundle.
 *
 * @example
 * const disk = createMemoryBackend({ seed: 7 });
 * await disk.write('a', 'x');            // not durable
 * const after = disk.crash('lost');       // power cut
 * await after.read('a')                   // undefined
 */
export function createMemoryBackend(options: MemoryBackendOptions = {}): MemoryBackend {
  const faults = createFaults();
  const disk = createMemoryDisk(options, faults);
  return Object.assign(disk, {
    crash(damage: CrashDamage = 'none', seed = options.seed ?? DEFAULT_SEED): MemoryBackend {
      faults.kill();
      const from = damageSnapshot(disk.snapshot(), damage, seed);
      return createMemoryBackend({ seed: options.seed, yieldEvery: options.yieldEvery, append: options.append, from });
    },
    failAt: (k: number, o?: FailAtOptions) => faults.failAt(k, o),
    crashAt: (k: number, o?: CrashAtOptions) => faults.crashAt(k, o),
    clearFaults: () => faults.clearFaults(),
    opCount: (ops?: readonly MemoryOp[]) => faults.opCount(ops),
    isCrashed: () => faults.dead,
  });
}

import { fsError } from './memory-files';

/** The meanings of the codes faults are injected with, beside Node's own words. */
const FAULTS: Record<string, string> = {
  EIO: 'i/o error',
  ENOSPC: 'no space left on device',
  ECRASH: 'simulated crash, the process is dead',
};
const fault = (code: string, op: string, path: string) => fsError(code, op, path, FAULTS[code] ?? 'injected fault');

/**
 * The operations of the memory backend, as `failAt` counts them ('write'
 * counts appends too: both put data in a file). 'fsync' is
 * the sync a `{ durable: true }` write, overwrite or append makes after its data
 * (and a durable removal after its unlink),
 * as node:fs does (GUAR-17): an I/O point of its own, to fail or crash at.
 */
export type MemoryOp = 'read' | 'write' | 'overwrite' | 'remove' | 'mkdir' | 'list' | 'exists' | 'fsync';

/** The operations that change files: the ones `opCount` and `crashAt` count by default. */
export const MUTATING_OPS: readonly MemoryOp[] = ['write', 'overwrite', 'remove', 'mkdir'];

/** Every point where a crash can leave the disk in another state: the mutating operations and fsync. */
export const IO_POINTS: readonly MemoryOp[] = [...MUTATING_OPS, 'fsync'];

/** How `failAt` fails. */
export interface FailAtOptions {
  /** The error's `code`, as node:fs would set it. Default 'EIO'. */
  code?: string;
  /** Fail every counted operation after the k-th too, until `clearFaults()`. */
  persistent?: boolean;
  /** The operations counted (this set replaces the default, MUTATING_OPS). */
  ops?: readonly MemoryOp[];
}

/** How `crashAt` counts. */
export interface CrashAtOptions {
  /** The operations counted (default MUTATING_OPS; IO_POINTS adds the fsyncs). */
  ops?: readonly MemoryOp[];
}

/** Fault plans and the op counter behind a memory backend. */
export interface Faults {
  failAt(k: number, options?: FailAtOptions): void;
  crashAt(k: number, options?: CrashAtOptions): void;
  clearFaults(): void;
  /** Operations of these kinds attempted so far (default MUTATING_OPS). */
  opCount(ops?: readonly MemoryOp[]): number;
  /** Mark the process dead: every later operation throws ECRASH. */
  kill(): void;
  /** Whether the process is dead (a crashAt fired, or kill()). */
  readonly dead: boolean;
  /** Count `op` and throw the error a plan calls for, before the op takes effect. */
  check(op: MemoryOp, path: string): void;
}

function positive(k: number): number {
  if (!Number.isInteger(k) || k < 1) throw new TypeError(`fault index must be an integer >= 1, got ${k}`);
  return k;
}

interface FailPlan {
  at: number;
  seen: number;
  code: string;
  persistent: boolean;
  ops: readonly MemoryOp[];
}

/** Create the fault plans of one memory backend; counts start when a plan is set. */
export function createFaults(): Faults {
  const counts = new Map<MemoryOp, number>();
  let dead = false;
  let fail: FailPlan | undefined;
  let crash: { at: number; seen: number; ops: readonly MemoryOp[] } | undefined;
  return {
    failAt(k, o = {}) {
      fail = { at: positive(k), seen: 0, code: o.code ?? 'EIO', persistent: o.persistent ?? false, ops: o.ops ?? MUTATING_OPS };
    },
    crashAt: (k, o = {}) => void (crash = { at: positive(k), seen: 0, ops: o.ops ?? MUTATING_OPS }),
    clearFaults() {
      fail = undefined;
      crash = undefined;
    },
    opCount: (ops = MUTATING_OPS) => ops.reduce((n, op) => n + (counts.get(op) ?? 0), 0),
    kill: () => void (dead = true),
    get dead() {
      return dead;
    },
    check(op, path) {
      if (dead) throw fault('ECRASH', op, path);
      counts.set(op, (counts.get(op) ?? 0) + 1);
      if (crash?.ops.includes(op) && ++crash.seen >= crash.at) {
        dead = true;
        throw fault('ECRASH', op, path);
      }
      if (!fail?.ops.includes(op)) return;
      const n = ++fail.seen;
      if (n === fail.at || (fail.persistent && n > fail.at)) throw fault(fail.code, op, path);
    },
  };
}

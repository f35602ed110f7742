import { SyncomError } from '../errors';
import { MAX_TS } from '../op/check';

/**
 * The node's clock (Clocks): Date.now(), never backwards, never behind a stamp
 * seen (a peer's op, a joined snapshot, the own log on reopen). Each own stamp
 * is strictly greater than every stamp made or seen (DESIGN: CLK-4, CLK-5, CLK-9),
 * so (ts, origin) is unique per op and a write that follows a read outranks it.
 */
export interface Clock {
  /** The stamp for the next own op. */
  next(): number;
  /** Take a stamp seen into account. */
  observe(ts: number): void;
  /** The wall clock as injected. */
  now(): number;
  /** The newest stamp made or seen. */
  readonly last: number;
}

/**
 * Read the injected wall clock, checked: open() seeds its clock with it and
 * each own op is stamped with it, and both fail alike on a broken one.
 * @throws SyncomError INVALID_ARGUMENT when it throws or reads no finite number.
 */
export function readWall(now: () => number = Date.now): number {
  let wall: number;
  try {
    wall = now();
  } catch (cause) {
    // The app's clock: its throw fails with a code, as a clock that reads no number does.
    throw new SyncomError('INVALID_ARGUMENT', "the clock (open()'s now) threw", { cause });
  }
  if (!Number.isFinite(wall)) throw new SyncomError('INVALID_ARGUMENT', `the clock (open()'s now) read ${String(wall)}: it gives ms since the epoch`);
  return wall;
}

/**
 * A clock over an injected wall clock (Date.now by default). A wall clock of
 * fractions of a ms (performance.timeOrigin + performance.now()) is cut to
 * whole ms: ts is an integer, and an op stamped 1.5 was refused by every
 * peer and by this node's own log at its next open.
 * @throws SyncomError from next(): INVALID_ARGUMENT when the wall clock reads
 * no finite number or throws; OP_INVALID when no stamp up to MAX_TS (the latest date) is left.
 */
export function createClock(now: () => number = Date.now, seed = 0): Clock {
  let last = seed;
  return {
    next() {
      const wall = readWall(now);
      const ts = Math.max(Math.floor(wall), last + 1);
      // Past the latest date no peer takes the op (MAX_TS), and past the safe integers two stamps would be one.
      if (!(ts <= MAX_TS)) throw new SyncomError('OP_INVALID', `the clock stands at ${last}, past the latest date: no stamp is left for an own op`);
      last = ts;
      return ts;
    },
    observe(ts: number) {
      if (ts > last) last = ts;
    },
    now,
    get last() {
      return last;
    },
  };
}

import { SyncomError } from '../errors';

/**
 * How long a connection must stay up for its drop not to count as early. A
 * host that drops connections sooner, two in a row, is dialed backed off
 * (docs/replication.md, The link contract): socket.io's own backoff starts
 * over at every connect that succeeds, so such a host was dialed about once
 * a second for good, each time a handshake and a hello at both ends.
 */
export const STEADY_MS = 30_000;

/** The longest wait before dialing a host that keeps dropping its connections. */
const EARLY_REDIAL_MAX_MS = 60_000;

/** What a link reports for the `n`-th early drop in a row (n ≥ 2), the next dial `ms` away. */
export type EarlyDrop = SyncomError & { flaps: number; redialIn: number };

/**
 * The wait before the next dial after `n` early drops in a row: `base` (the
 * link's own delay) after the first, then 2 s, 4 s, ... up to a minute, or
 * `base` if it is longer; and the LINK_DOWN that says so, from the second.
 */
export function earlyDrop(n: number, base: number): { wait: number; error?: EarlyDrop } {
  if (n < 2) return { wait: base };
  const wait = Math.max(base, Math.min(EARLY_REDIAL_MAX_MS, 1000 * 2 ** (n - 1)));
  const message = `the host dropped ${n} connections in a row within ${STEADY_MS / 1000} s of connecting; dialing again in ${wait / 1000} s`;
  return { wait, error: new SyncomError('LINK_DOWN', message, { flaps: n, redialIn: wait }) as EarlyDrop };
}

/** Whether a link's 'close' came with an early drop (earlyDrop's error). */
export function isEarlyDrop(e: unknown): e is EarlyDrop {
  return e instanceof SyncomError && e.code === 'LINK_DOWN' && typeof e.flaps === 'number' && typeof e.redialIn === 'number';
}

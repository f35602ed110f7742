import { SyncomError } from '../errors';

/**
 * How long a connection must stay up for its drop not to count as early. A
 * host that drops connections sooner, two in a row, is dialed backed off
 * (docs/replication.md, The link contract): socket.io's own backoff starts
 * over at every connect that succeeds, so such a host was dialed about once
 * a second for good, each time a handshake and a hello at both ends.
 */
export const STEADY_MS = 30_000;

/** A link's word that the host keeps dropping connections soon after they come: how many in a row, and the wait before the next dial (ms). */
export type EarlyDrop = SyncomError & { flaps: number; redialIn: number };

/**
 * After `n` early drops in a row, from the second: the LINK_DOWN that says
 * so, with the wait before the next dial, 2 s, 4 s, ... up to a minute (or
 * `base`, the link's own delay, if longer). After the first, nothing: the
 * link's own delay, as for any drop.
 */
export function earlyDrop(n: number, base: number): EarlyDrop | undefined {
  if (n < 2) return undefined;
  const wait = Math.max(base, Math.min(60_000, 1000 * 2 ** (n - 1)));
  const message = `the host dropped ${n} connections in a row within ${STEADY_MS / 1000} s of connecting; dialing again in ${wait / 1000} s`;
  return new SyncomError('LINK_DOWN', message, { flaps: n, redialIn: wait }) as EarlyDrop;
}

/** Whether a link's 'close' came with an early drop (earlyDrop's error). */
export const isEarlyDrop = (e: unknown): e is EarlyDrop => typeof (e as EarlyDrop | undefined)?.redialIn === 'number';

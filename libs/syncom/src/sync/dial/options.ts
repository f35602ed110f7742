import { SyncomError } from '../../errors';
import { checkOptionShape } from '../../open-options';
import type { SyncLink } from '../../link/contract';
import type { NodeRecord } from './registry';

/** The dialer's options under open({ sync }) (Options). */
export interface DialOptions {
  connect?: (node: NodeRecord) => SyncLink | Promise<SyncLink>;
  autoStart?: boolean;
  maxOutbox?: number;
  /** Ops per push (default 500, OPT-12). */
  pageSize?: number;
  /**
   * The most a push weighs, UTF-8 bytes of its ops' JSON (default 4 MiB, and never above the
   * host's `pushBytes` from hello); a larger op goes alone (bounded frames).
   */
  pageBytes?: number;
  /**
   * The most a streamed snapshot page may hold, UTF-8 bytes (default 64 MiB). Only a page of one record
   * above the host's `pageBytes` is streamed, so this is the largest record a bootstrap takes: past it
   * the page fails (PAGE_FAILED) and the bootstrap is asked again later. A host decides how long its
   * stream runs; without a bound an endless one ran the dialer out of memory.
   */
  maxPageBytes?: number;
  signatures?: 'verify' | 'require' | false;
  /** The wire versions this node speaks, both roles (default WIRE_VERSIONS; tests pin others). */
  wireVersions?: number[];
  /** Reconcile every scope with each host this often, in ms (default 180000, 3 minutes; 0 disables). */
  antiEntropyInterval?: number;
  hooks?: {
    beforeConnect?: (node: NodeRecord) => boolean | Promise<boolean>;
    beforeBootstrap?: (ctx: { url: string; remote: NodeRecord['remote'] }) => boolean | Promise<boolean>;
  };
}

/** The longest delay a timer takes: past it setTimeout fires at once (Node warns, browsers do the same). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * synced()'s options, checked: `{ timeout }` of NaN, -1 or `'10s'` had
 * answered SYNC_TIMEOUT at once, and one of Infinity or past 24.8 days too,
 * as setTimeout fires a delay it cannot hold at once.
 * @returns the ms to wait, or undefined for no bound (no timeout, or Infinity).
 * @throws SyncomError INVALID_ARGUMENT unless `o` is `{ timeout? }` with a timeout of 0 or more ms.
 */
export function syncedTimeout(o: unknown): number | undefined {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new SyncomError('INVALID_ARGUMENT', 'synced(url, options) takes options { timeout? }');
  const x = { ...o } as { timeout?: unknown };
  checkOptionShape(x, { timeout: ['a number of ms, 0 or more, or Infinity', (t) => typeof t === 'number' && t >= 0] }, 'synced()');
  const t = x.timeout as number | undefined;
  return t === undefined || t === Infinity ? undefined : Math.min(t, MAX_TIMER_MS);
}

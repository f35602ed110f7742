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

import { SyncomError } from '../../errors';
import { checkOptionShape, type OptionShape } from '../../open-options';
import type { UnitOptions } from './unit';
import {
  DEFAULT_CONNECTION_IN_FLIGHT_BYTES, DEFAULT_MAX_IN_FLIGHT_BYTES, DEFAULT_MAX_IN_FLIGHT_FRAMES, DEFAULT_PAGE_BYTES, MAX_IN_FLIGHT_FRAMES, positiveInt,
} from '../protocol/frames';
import { checkedLimits, DEFAULT_AUTHORIZE_MS, type Limits } from '../protocol/limits';
import { MAX_TIMER_MS } from '../dial/options';
import { DEFAULT_MAX_PAGINGS, DEFAULT_MAX_PAGINGS_PER_CONNECTION } from './snapshot';

/** The options of storage.sync.unit() that unitBounds reads; UnitOptions extends them (and types the first three). */
export interface UnitBoundOptions {
  access?: unknown;
  authorize?: unknown;
  tracked?: unknown;
  limits?: Limits;
  /** Records per snapshot page, ops per changes page (default 500, HOST-5). */
  pageSize?: number;
  /** The most a snapshot or changes page weighs, UTF-8 bytes of its JSON (default 4 MiB, HOST-6); a larger record goes alone. */
  pageBytes?: number;
  /** Frames (changes pages, snapshot stream chunks) out to one peer unacknowledged at once (default 16; the send window). */
  maxInFlightFrames?: number;
  /**
   * UTF-8 bytes of frames out unacknowledged over every connection of this
   * unit (default 64 MiB). Past it, a connection sends only while it has no
   * frame out: one frame each, so an acknowledging peer is never starved by
   * idle ones; the worst case is this budget plus one frame per connection.
   */
  maxInFlightBytes?: number;
  /** UTF-8 bytes of frames out unacknowledged to one connection, beyond its first frame (default 16 MiB). */
  maxConnectionInFlightBytes?: number;
  /** Changes feeds one connection may hold open; one more is refused 429 TOO_MANY_FEEDS (default 8). */
  maxFeedsPerConnection?: number;
  /**
   * Snapshot pagings (and snapshot streams) kept open over every connection (default 64). Past it the
   * least recently used paging goes if unused for 30 s, else a new one is refused 503 SNAPSHOT_BUSY.
   */
  maxPagings?: number;
  /** Snapshot pagings (and snapshot streams) one connection may keep open; past it its least recently used is dropped (default 4). */
  maxPagingsPerConnection?: number;
  /**
   * How long `authorize` may take at a hello, in ms (default 10 s): past it the hello is refused 503
   * AUTHORIZE_FAILED (its later answer dropped), which a dialer greets again after, backed off. A lookup
   * that never answered held each hello, and its connection's context, for good.
   */
  authorizeTimeout?: number;
  exactScopes?: unknown;
  proveNodes?: unknown;
}

/** Every option of UnitOptions (the compiler keeps the list whole); their values are checked below and where they are read. */
const UNIT_KEYS: Readonly<Record<keyof UnitOptions, 1>> = {
  access: 1, authorize: 1, tracked: 1, pageSize: 1, pageBytes: 1, maxInFlightFrames: 1, maxInFlightBytes: 1, maxConnectionInFlightBytes: 1,
  maxFeedsPerConnection: 1, maxPagings: 1, maxPagingsPerConnection: 1, pushBytes: 1, exactScopes: 1, limits: 1, meta: 1, reconcileFrame: 1,
  wireVersions: 1, proveNodes: 1, authorizeTimeout: 1,
};
const UNIT_SHAPE: OptionShape = Object.fromEntries(Object.keys(UNIT_KEYS).map((k) => [k, ['an option', () => true] as const]));

const shown = (x: unknown) => (typeof x === 'string' ? JSON.stringify(x) : typeof x);

/**
 * The unit's choices checked. A unit reads any access but 'session' as
 * public, so a misspelt one would serve peers without a session (docs/replication.md,
 * Frames and backpressure): it is refused, as an authorize or tracked that cannot be called,
 * and an exactScopes or proveNodes that is no boolean (a 'true' read from an env file had left
 * exactScopes off, a 'false' turned proveNodes on).
 */
function checkChoices(o: UnitBoundOptions): void {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new SyncomError('INVALID_ARGUMENT', 'storage.sync.unit() takes an options object');
  // A misspelt key (`limts`) had made a unit without the limits it meant to set.
  checkOptionShape({ ...o }, UNIT_SHAPE, 'storage.sync.unit()');
  if (o.access !== undefined && o.access !== 'session' && o.access !== 'public') {
    throw new SyncomError('INVALID_ARGUMENT', `access must be 'session' or 'public', not ${shown(o.access)}`);
  }
  for (const name of ['authorize', 'tracked'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'function') throw new SyncomError('INVALID_ARGUMENT', `${name} must be a function, not ${shown(o[name])}`);
  }
  for (const name of ['exactScopes', 'proveNodes'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'boolean') {
      throw new SyncomError('INVALID_ARGUMENT', `${name} must be true or false, not ${shown(o[name])}`, { option: name });
    }
  }
}

/**
 * A unit's bounds from its options, each checked: what a unit is made with.
 * A host framework checks its options with it before it opens anything, so
 * a bound out of range fails its start holding no store.
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option out of range, or an access, authorize, tracked, exactScopes or proveNodes of the wrong kind.
 */
export function unitBounds(o: UnitBoundOptions) {
  checkChoices(o);
  return {
    limits: checkedLimits(o.limits),
    pageSize: positiveInt(o.pageSize, 500, 'pageSize'),
    pageBytes: positiveInt(o.pageBytes, DEFAULT_PAGE_BYTES, 'pageBytes'),
    peers: {
      maxInFlightFrames: positiveInt(o.maxInFlightFrames, DEFAULT_MAX_IN_FLIGHT_FRAMES, 'maxInFlightFrames', MAX_IN_FLIGHT_FRAMES),
      maxInFlightBytes: positiveInt(o.maxInFlightBytes, DEFAULT_MAX_IN_FLIGHT_BYTES, 'maxInFlightBytes'),
      maxConnectionInFlightBytes: positiveInt(o.maxConnectionInFlightBytes, DEFAULT_CONNECTION_IN_FLIGHT_BYTES, 'maxConnectionInFlightBytes'),
      maxFeedsPerConnection: positiveInt(o.maxFeedsPerConnection, 8, 'maxFeedsPerConnection'),
    },
    pagings: {
      max: positiveInt(o.maxPagings, DEFAULT_MAX_PAGINGS, 'maxPagings'),
      perConnection: positiveInt(o.maxPagingsPerConnection, DEFAULT_MAX_PAGINGS_PER_CONNECTION, 'maxPagingsPerConnection'),
    },
    authorizeTimeout: positiveInt(o.authorizeTimeout, DEFAULT_AUTHORIZE_MS, 'authorizeTimeout', MAX_TIMER_MS),
  };
}

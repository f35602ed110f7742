import { SyncomError } from '../../errors';
import {
  DEFAULT_CONNECTION_IN_FLIGHT_BYTES, DEFAULT_MAX_IN_FLIGHT_BYTES, DEFAULT_MAX_IN_FLIGHT_FRAMES, DEFAULT_PAGE_BYTES, MAX_IN_FLIGHT_FRAMES, positiveInt,
} from '../protocol/frames';
import { checkedLimits, type Limits } from '../protocol/limits';
import { DEFAULT_MAX_PAGINGS, DEFAULT_MAX_PAGINGS_PER_CONNECTION } from './snapshot';

/** The options of storage.sync.unit() that unitBounds reads (UnitOptions has them all). */
export interface UnitBoundOptions {
  access?: unknown;
  authorize?: unknown;
  tracked?: unknown;
  limits?: Limits;
  pageSize?: number;
  pageBytes?: number;
  maxInFlightFrames?: number;
  maxInFlightBytes?: number;
  maxConnectionInFlightBytes?: number;
  maxFeedsPerConnection?: number;
  maxPagings?: number;
  maxPagingsPerConnection?: number;
}

const shown = (x: unknown) => (typeof x === 'string' ? JSON.stringify(x) : typeof x);

/**
 * The unit's choices checked. A unit reads any access but 'session' as
 * public, so a misspelt one would serve peers without a session (docs/api.md,
 * Hosting): it is refused, as an authorize or tracked that cannot be called.
 */
function checkChoices(o: UnitBoundOptions): void {
  if (o.access !== undefined && o.access !== 'session' && o.access !== 'public') {
    throw new SyncomError('INVALID_ARGUMENT', `access must be 'session' or 'public', not ${shown(o.access)}`);
  }
  for (const name of ['authorize', 'tracked'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'function') throw new SyncomError('INVALID_ARGUMENT', `${name} must be a function, not ${shown(o[name])}`);
  }
}

/**
 * A unit's bounds from its options, each checked: what a unit is made with.
 * A host framework checks its options with it before it opens anything, so
 * a bound out of range fails its start holding no store.
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option out of range, or an access, authorize or tracked of the wrong kind.
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
  };
}

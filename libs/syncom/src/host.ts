/**
 * The hosting side, `syncom/host`: importing it lets storage.sync.unit() make
 * a host unit under the browser entry, which leaves it out (a page that only
 * dials a hub carries none of it: about 11 KB of the browser bundle gzipped),
 * with what a gateway in front of a unit uses (its bounds, limits and rate
 * buckets). The `syncom` entry (Node's) always has it and exports the same
 * names; there this import changes nothing. It installs no platform: import it
 * beside `syncom/browser` or `syncom`.
 */
import './host-install';
export { SyncUnit } from './sync/host/unit';
export { unitBounds } from './sync/host/unit-bounds';
export { endHostSessions } from './sync/host/peers';
export { authorizeFailed, authorizeVerdict, checkLimits, DEFAULT_AUTHORIZE_MS, limitKey, PeerBuckets, TokenBucket } from './sync/protocol/limits';

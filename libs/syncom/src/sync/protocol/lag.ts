import type { Vector } from '../../op/types';
import { keyOrigin, keyScope } from './scopes';

/** The node a key's stream was joined from, if any (streamKey's `<from` suffix). */
function keyFrom(key: string): string | undefined {
  const lt = key.indexOf('<');
  return lt < 0 ? undefined : key.slice(lt + 1);
}

/**
 * How many ops a host is behind this node (syncom.sync.lag), by vector
 * arithmetic alone so a collection never scans the log: per stream, this
 * node's seq less the host's. Streams the dialer never pushes there are left
 * out, as `Dialer.lacks` leaves out their ops: the host's own, those joined
 * from it, and scopes the host does not hold this node to.
 */
export function vectorLag(mine: Vector, theirs: Vector, o: { host: string; allowed: Set<string> | 'all' }): number {
  let lag = 0;
  for (const [key, seq] of Object.entries(mine)) {
    if (keyOrigin(key) === o.host || keyFrom(key) === o.host) continue;
    if (o.allowed !== 'all' && !o.allowed.has(keyScope(key))) continue;
    // Own keys only: a vector key such as `constructor` must read as 0, not as Object.prototype's member.
    lag += Math.max(0, seq - (Object.hasOwn(theirs, key) ? theirs[key] : 0));
  }
  return lag;
}

/**
 * How many ops a host holds that this node lacks, by the host's vector as of
 * its last answer: the other direction of vectorLag. Streams the host never
 * sends here are left out: this node's own, those joined from it, and scopes
 * it was not registered with.
 */
export function vectorAhead(theirs: Vector, mine: Vector, o: { self: string; allowed: Set<string> | 'all' }): number {
  // The same arithmetic as vectorLag with the roles swapped: the streams left out are this node's.
  return vectorLag(theirs, mine, { host: o.self, allowed: o.allowed });
}

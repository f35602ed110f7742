import type { Via } from '../../storage/commit';
import type { Replica } from '../../storage/replica';
import { keyOrigin, keyScope, type Op, opStreamKey, type Vector } from '../../op/types';
import { allowedFor } from '../protocol/scopes';
import { adopt } from './bootstrap';

/**
 * The feed host's own advances in a page, not logged here yet, when one of
 * them names a stream of a scope the host is not dialed for; none
 * otherwise. Granted as sent (BOOT-11), such an advance counted another
 * host's ops of that scope as held here, and they were dropped as
 * duplicates when that host sent them (test/hostile/grant-foreign-scopes.spec.ts).
 * An honest host's feed of some scopes serves their advances and the global
 * ones, each of its scope's streams; only an advance a log of an earlier
 * version holds names every scope's (docs/security.md, What stays open).
 */
export function foreignGrants(ops: readonly Op[], host: string | undefined, scopes: readonly string[], logged: Readonly<Vector>): Op[] {
  const allowed = allowedFor(scopes);
  if (host === undefined || allowed === 'all') return [];
  const own = ops.filter((op) => op.type === 'advance' && op.origin === host && op.vector && (logged[opStreamKey(op)] ?? 0) < op.seq);
  return own.some((op) => Object.keys(op.vector as Vector).some((k) => !allowed.has(keyScope(k)))) ? own : [];
}

/**
 * What `ops` (foreignGrants') name of the dialed scopes, adopted as this
 * node's own advances, as a snapshot's vector is (BOOT-5): for each that the
 * page logged (an op refused for its signature grants nothing).
 */
export async function adoptGranted(replica: Replica, ops: readonly Op[], o: { host: string; via: Via; scopes: readonly string[] }): Promise<void> {
  for (const op of ops) {
    if ((replica.vector[opStreamKey(op)] ?? 0) >= op.seq) await adopt(replica, o.host, op.vector as Vector, o.via, o.scopes);
  }
}

/**
 * The streams the feed host's own advances in a page name: each is an
 * adoption the host logged (a bootstrap of its own), so the host holds them.
 * Its vector as this node knows it must say so, or the ops those streams
 * hold here count as ones the host lacks and synced() waits for the next
 * hello. This node's own streams count as far as this node wrote them
 * (`mine`), never past: a host of an earlier version that adopted them while
 * this node's push of the same ops was on its way answered that push with
 * duplicates it had not committed yet, which its answer did not name, and
 * the node waited for a hello that never came (found by the four-node
 * model's retention mode, test/sim/found-by-model.spec.ts); past what it
 * wrote, a host's word would keep its next own ops from that host.
 */
export function hostAdopted(ops: readonly Op[], host: string | undefined, self: string, mine: Readonly<Vector>): Vector {
  const out: Vector = {};
  for (const op of ops) {
    if (op.type !== 'advance' || op.origin !== host || !op.vector) continue;
    for (const k of Object.keys(op.vector)) {
      const n = keyOrigin(k) === self ? Math.min(op.vector[k], mine[k] ?? 0) : op.vector[k];
      if (n > 0 && !(out[k] >= n)) out[k] = n;
    }
  }
  return out;
}

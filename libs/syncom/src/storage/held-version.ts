import { type Entry, isEntry } from '../crdt';
import type { Op } from '../op/types';
import { DEFAULT_MAX_AHEAD } from '../schema/options';

/**
 * The schema version an op brings, for `ahead: 'hold'` (GUAR-26): its own
 * `v`, or for a merge (which carries no `v`) the version its joined state
 * remembers (meta.v, OPS-17). A merge relayed from a node that joined a newer
 * node's state by bootstrap or reconciliation is thus held like the op it
 * stands for.
 */
export function heldVersion(op: Op): number {
  // A purge marker needs no schema (a purge is never held): a merge carrying one lands now on a node that
  // purged the record, and was held on one that had not, which then held another marker until its upgrade.
  const joined = op.type === 'merge' && isEntry(op.data, op.id) && !(op.data as Entry).purged ? (op.data as Entry).v ?? 0 : 0;
  return Math.max(op.v ?? 0, joined);
}

/**
 * The version held for on a node of schema `version` (-1: none, every held op
 * waits): the one claimed, or the node's own where the claim is more than
 * `maxAhead` past it (SchemaOptions.maxAhead). The claim is the writer's, so
 * it stands only as far as an upgrade could plausibly reach.
 */
export function claimedVersion(v: number, version: number, maxAhead = DEFAULT_MAX_AHEAD): number {
  return version >= 0 && v - version > maxAhead ? version : v;
}

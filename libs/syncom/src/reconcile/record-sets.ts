import type { Entry } from '../crdt';
import type { Replica } from '../storage/replica';
import { entryItem } from './digest';
import type { ItemSet } from './item-set';
import type { ReconcileItem } from './types';

/**
 * The labels a grant reconciles (RECONCILE.md, Scopes): '*' alone over every
 * record when '*' is granted; otherwise each granted scope, and '*' over the
 * global scope's records.
 */
export function reconcileLabels(granted: readonly string[]): string[] {
  if (granted.includes('*')) return ['*'];
  return [...new Set(granted), '*'];
}

/** Whether a peer granted `granted` may reconcile `label`: '*' always (the global scope reaches everyone, SCOPE-9). */
export function labelGranted(label: string, granted: readonly string[]): boolean {
  return label === '*' || granted.includes('*') || granted.includes(label);
}

/** Whether a record in `scope` is in the set of `label` under a grant. */
export function inLabel(scope: string | undefined, label: string, granted: readonly string[]): boolean {
  if (label === '*') return granted.includes('*') || (scope ?? '*') === '*';
  return scope === label;
}

/**
 * The committed entries of a label's set: tombstones and purge markers
 * included, sealed records never (they never leave this node, GUAR-19).
 */
export function labelEntries(replica: Replica, label: string, granted: readonly string[]): Entry[] {
  const out: Entry[] = [];
  for (const [id, e] of replica.records) {
    if (!replica.isSealed(id) && inLabel(replica.scopeOf(id), label, granted)) out.push(e);
  }
  return out;
}

/**
 * A label's set as reconciliation items, digested from scratch: one
 * entryDigest per record. What labelSet keeps up to date, and what tests
 * compare it with; a reconciliation reads labelSet.
 */
export function labelItems(replica: Replica, label: string, granted: readonly string[]): ReconcileItem[] {
  return labelEntries(replica, label, granted).map(entryItem);
}

/**
 * A label's set as it is now, for createReconciler({ set }): read from the
 * storage's digest index, which commits keep up to date (only the records a
 * batch touched are digested again), so neither the host's responder nor the
 * dialer digests every record on each run. Immutable: later commits do not
 * change it.
 */
export function labelSet(replica: Replica, label: string, granted: readonly string[]): ItemSet {
  return replica.digests().labelSet(label, granted);
}

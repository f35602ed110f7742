import type { Span } from '@opentelemetry/api';
import { SyncomError } from '../../errors';
import { parseEventId } from '../../log/event-id';
import { isVector } from '../../op/shape';
import type { Vector } from '../../op/types';
import type { Replica } from '../../storage/replica';
import { type ReconcileRun, reconcileLabel } from './anti-entropy';
import { adopt, type BootstrapRun, runBootstrap } from './bootstrap';
import { inLabel, reconcileLabels } from '../../reconcile/record-sets';
import { RECONCILE_CAP } from '../protocol/versions';

/** What a bootstrap ends with: the event id to resume the feed from, the records joined, and how. */
export interface CaughtUp {
  eventId: string;
  records: number;
  incremental: boolean;
  /** The streams of the host's vector adopted (adopt): the host holds that much of each. */
  vector: Vector;
}

/** Whether this node holds any record of the sets it reconciles with the host: else there is nothing to spare. */
function holdsData(replica: Replica, scopes: readonly string[]): boolean {
  const labels = reconcileLabels(scopes);
  for (const id of replica.records.keys()) {
    if (!replica.isSealed(id) && labels.some((l) => inLabel(replica.scopeOf(id), l, scopes))) return true;
  }
  return false;
}

/**
 * An incremental bootstrap (set reconciliation, RECONCILE.md): reconcile every label instead of
 * paging the whole snapshot. The first call (start) names the host's
 * committed point, its vector and event id, taken before its set was built;
 * what differs is joined, the vector adopted as a snapshot's would be (this
 * node's own streams left out: adopt), and the merges of what the host
 * lacks are logged (the relay pushes them).
 */
export async function reconcileBootstrap(o: ReconcileRun): Promise<CaughtUp> {
  let first: { vector?: unknown; eventId?: string } | undefined;
  let records = 0;
  for (const label of reconcileLabels(o.scopes)) {
    const r = await reconcileLabel(o, label, first === undefined);
    first ??= r;
    records += r.need;
  }
  const vector = first?.vector;
  // The vector is adopted as an advance op: one that is no version vector would be logged malformed. The event id
  // becomes the cursor, saved with the registry and sent back at each resume: held to <epoch>.<seq> as a page's is.
  if (!isVector(vector) || typeof first?.eventId !== 'string' || parseEventId(first.eventId) === undefined) {
    throw new SyncomError('BAD_ANSWER', 'the host\'s reconciliation named no committed point', { url: o.url });
  }
  const adopted = await adopt(o.replica, o.host, vector, { url: o.url, node: o.host }, o.scopes);
  return { eventId: first.eventId, records, incremental: true, vector: adopted };
}

/**
 * Catch up with a host that cannot resume this node's feed (BOOT-1): when
 * its floor passed a cursor this node held (`fell`), the host can reconcile
 * and this node holds data, incrementally, falling back to the full snapshot
 * on any failure; else (a first contact, a foreign epoch) the snapshot.
 */
export async function catchUp(o: ReconcileRun, caps: readonly string[], p: { progress: BootstrapRun['progress']; span: Span; fell: boolean; report?: (e: SyncomError) => void }): Promise<CaughtUp> {
  const full: BootstrapRun = { ...o, progress: p.progress, traced: { telemetry: o.telemetry, span: p.span } };
  if (p.fell && caps.includes(RECONCILE_CAP) && holdsData(o.replica, o.scopes)) {
    try {
      return await reconcileBootstrap(o);
    } catch (e) {
      // The snapshot repairs whatever the reconciliation left half done: its joins and adopt are idempotent. The failure
      // is told all the same (RECONCILE.md): unseen, a host answering so cost a whole snapshot at every bootstrap. Not a
      // lost link: the snapshot fails on it too, and that failure is handled as any.
      const code = (e as { code?: string })?.code;
      if (code !== 'LINK_DOWN' && code !== 'LINK_TIMEOUT') {
        p.report?.(e instanceof SyncomError ? e : new SyncomError('SYNC_FAILED', `the incremental bootstrap failed: ${String((e as Error)?.message ?? e)}`, { url: o.url, cause: e }));
      }
    }
  }
  return { ...(await runBootstrap(full)), incremental: false };
}

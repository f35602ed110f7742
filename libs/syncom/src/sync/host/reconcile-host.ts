import { type Entry, entryText } from '../../crdt';
import { SyncomError } from '../../errors';
import type { Replica } from '../../storage/replica';
import { createReconciler, RECONCILE_DEFAULTS, type Message, type Reconciler } from '../../reconcile';
import { labelGranted, labelSet } from '../../reconcile/record-sets';
import { platform } from '../../platform';
import { jsonBytes } from '../protocol/frames';
import { inServed, servedVector } from '../protocol/scopes';
import { outsideIds, removedScopeBytes, removedScopesOf } from './reconcile-outside';
import { everyItem } from '../protocol/versions';
import type { ReconcileAnswer } from '../protocol/reconcile-answer';
import { heldBack } from './snapshot-held';

export type { ReconcileAnswer };

/** Ids one records call may name: the envelope's bound (the host takes its pageSize of them). */
const MAX_IDS = 10_000;

/**
 * The host's side of reconciliation (set reconciliation, RECONCILE.md): the `reconcile` and
 * `records` procedures over the sets a session was granted.
 */
export class ReconcileHost {
  constructor(private readonly replica: Replica, private readonly o: { pageSize: number; pageBytes?: number; frameLimit?: number }) {}

  /** The largest reconcile message taken and sent; hello tells the dialer, whose messages must fit it. */
  get frameLimit(): number {
    return this.o.frameLimit ?? RECONCILE_DEFAULTS.frameLimit;
  }

  /** One initiator message answered. @throws SyncomError 403 SCOPES, 413 RECONCILE_TOO_LARGE, 400 RECONCILE_MALFORMED. */
  reconcile(args: unknown, granted: readonly string[]): ReconcileAnswer {
    const a = (args ?? {}) as { scope?: unknown; msg?: unknown; start?: unknown };
    const label = checkLabel(a.scope, granted);
    // Measured before decoding: a peer must not make the host parse more than one frame.
    const bytes = jsonBytes(a.msg);
    if (bytes > this.frameLimit) throw new SyncomError('RECONCILE_TOO_LARGE', `a reconcile message of ${bytes} bytes is over the frame of ${this.frameLimit}`, { status: 413 });
    const log = this.replica;
    // Taken before the set is built: the set covers at least what this vector says.
    const at = a.start === true ? heldBack(log, servedVector(log.committedVector, granted), log.committedHead) : {};
    const out = this.responder(label, granted).reconcile(a.msg);
    if (!out.ok) throw new SyncomError('RECONCILE_MALFORMED', out.reason, { status: 400 });
    return { msg: out.next as Message, ...at };
  }

  /**
   * Records by id, in the order asked, of any scope the session was granted,
   * not only the label's: a record that moved between two labels while a
   * dialer reconciled them one after the other was asked under the label it
   * had left and served under neither, and the dialer adopted a vector
   * counting ops its copy lacked for good (found by the four-node model).
   * Missing and sealed ones are left out, and a purged one served whatever
   * its scope (see outsideIds). At most pageSize ids are taken, and no more than keep the
   * entries' JSON within pageBytes (one larger entry alone):
   * `taken` says how many, and the dialer asks the rest again (its own
   * pageSize may be larger).
   */
  records(args: unknown, granted: readonly string[]): { entries: Entry[]; taken: number; outside?: string[]; removedScopes?: Record<string, string> } {
    const a = (args ?? {}) as { scope?: unknown; ids?: unknown };
    // The label is still held to the grant: an ungranted one is refused, as reconcile refuses it.
    checkLabel(a.scope, granted);
    const ids = a.ids;
    if (!Array.isArray(ids) || ids.length > MAX_IDS || !everyItem(ids, (id) => typeof id === 'string')) {
      throw new SyncomError('BAD_REQUEST', `records takes { scope, ids: [at most ${MAX_IDS} ids] }`, { status: 400 });
    }
    const asked = (ids as string[]).slice(0, this.o.pageSize);
    const c = this.replica.records;
    const entries: Entry[] = [];
    let [taken, bytes] = [0, 1];
    for (const id of asked) {
      const e = c.get(id);
      // A purged record is served to whoever names it, whatever its scope: its entry is the id and the purge's
      // stamp, nothing the asker lacks, and a peer of a scope the record left before its purge still holds it.
      if (e && !this.replica.isSealed(id) && (e.purged !== undefined || inServed(this.replica.scopeOf(id), granted))) {
        // entryText: a large record's text joined from its kept leaf texts, as its record file's is.
        const n = platform().byteLength(entryText(e)) + 1 + removedScopeBytes(this.replica, e);
        if (entries.length > 0 && bytes + n > (this.o.pageBytes ?? Infinity)) break;
        bytes += n;
        entries.push(e);
      }
      taken++;
    }
    const outside = outsideIds(this.replica, asked.slice(0, taken), granted);
    const removed = removedScopesOf(this.replica, entries, granted);
    return { entries, taken, ...(outside.length > 0 && { outside }), ...(removed && { removedScopes: removed }) };
  }

  /**
   * A responder over the label's set as it is now. The set comes from the
   * storage's digest index, kept up to date at commit time: a write costs
   * the next reconcile the digests of the records it touched, not a rebuild
   * of the whole set (a peer alternating pushes and reconciles must not make
   * the host digest every record each time). The responder keeps no state,
   * so one per message costs nothing but its options' check.
   */
  private responder(label: string, granted: readonly string[]): Reconciler {
    return createReconciler({ set: labelSet(this.replica, label, granted), frameLimit: this.frameLimit });
  }
}

/** The label asked, when the session may reconcile it. */
function checkLabel(x: unknown, granted: readonly string[]): string {
  if (typeof x !== 'string' || x.length === 0 || x.length > 128) throw new SyncomError('BAD_REQUEST', 'reconcile takes a scope label', { status: 400 });
  if (!labelGranted(x, granted)) throw new SyncomError('SCOPES', `scope ${x} was not granted`, { status: 403 });
  return x;
}

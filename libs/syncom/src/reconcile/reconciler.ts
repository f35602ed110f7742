import { decodeMessage } from './decode';
import { Initiator, type ReconcileStep } from './initiator';
import { buildItemSet, type ItemSet } from './item-set';
import { checkParams } from './params';
import { respond } from './respond';
import type { Message, ReconcileItem, ReconcileRefusal } from './types';

/** createReconciler's options. */
export interface ReconcilerOptions {
  /** One side's set: one item per record of the scope, in any order (entryItem). */
  items?: Iterable<ReconcileItem>;
  /**
   * The set already indexed, in place of items: an ItemIndex's snapshot,
   * kept up to date by its owner, so a run costs no rebuild.
   */
  set?: ItemSet;
  /** B, the sub-ranges a differing range is cut into (2-256, default 16). */
  branching?: number;
  /** List a differing range holding fewer items than this (2-1024, default 2B). */
  listBelow?: number;
  /** The most UTF-8 bytes of JSON one message of this side takes (32 KiB-64 MiB, default 512 KiB). */
  frameLimit?: number;
}

/** What reconcile returns: the step, or a refusal of the input. */
export type ReconcileOutcome = ReconcileStep | ReconcileRefusal;

/** One side of a range-based set reconciliation (RECONCILE.md). No I/O, no clock. */
export interface Reconciler {
  /** Items in the set. */
  readonly size: number;
  /**
   * Start (or start over) a run as the initiator: the message to send. From
   * then on reconcile() reads the responder's answers.
   */
  initiate(): Message;
  /**
   * Take the peer's message (any value: it is decoded first, never thrown
   * on). As the responder (initiate() never called) the answer is always a
   * message and have/need stay empty: the responder keeps no state, and one
   * reconciler answers any number of initiators. As the initiator, `next` is
   * null when the run is over, and have/need hold the ids found this round.
   */
  reconcile(input: unknown): ReconcileOutcome;
}

/**
 * A reconciler over one side's set: `items`, sorted and hashed here (an id
 * held twice is refused), or a `set` an ItemIndex keeps.
 * @throws TypeError on an item that is not { ts, id, digest }, an id held
 * twice, or an option out of range.
 * @example
 * const a = createReconciler({ items: mine });
 * const b = createReconciler({ items: theirs });
 * let msg: Message | null = a.initiate();
 * while (msg) {
 *   const answer = b.reconcile(msg);
 *   if (!answer.ok) throw new Error(answer.reason);
 *   const step = a.reconcile(answer.next);
 *   if (!step.ok) throw new Error(step.reason);
 *   push(step.have); fetch(step.need);
 *   msg = step.next;
 * }
 */
export function createReconciler(options: ReconcilerOptions): Reconciler {
  const params = checkParams(options);
  const set = options.set ?? buildItemSet(options.items ?? []);
  let initiator: Initiator | undefined;
  return {
    size: set.size,
    initiate() {
      initiator = new Initiator(set, params);
      return initiator.start();
    },
    reconcile(input) {
      const d = decodeMessage(input);
      if (!d.ok) return d;
      if (initiator) return initiator.receive(d.message);
      const r = respond(set, d.message, params);
      return r.ok ? { ok: true, next: r.next, have: [], need: [] } : r;
    },
  };
}

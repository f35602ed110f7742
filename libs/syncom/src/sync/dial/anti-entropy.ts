import { type Entry, plainEntry } from '../../crdt';
import { SyncomError } from '../../errors';
import type { SyncLink } from '../../link/contract';
import type { Vector } from '../../op/types';
import type { Replica } from '../../storage/replica';
import type { SyncTelemetry } from '../../telemetry';
import { joinPage } from './bootstrap';
import { isRemovedScopes } from '../protocol/snapshot-page';
import { mergeScope } from './merge-scope';
import { createReconciler, entryDigest, type Message, MIN_FRAME_LIMIT, RECONCILE_DEFAULTS } from '../../reconcile';
import type { ReconcileAnswer } from '../protocol/reconcile-answer';
import { inLabel, labelSet, reconcileLabels } from '../../reconcile/record-sets';

/** Rounds of one label's run at most: a run takes about log_B(n)/2 + 1, so this only stops a host that never ends one. */
const MAX_ROUNDS = 64;

/**
 * The merges one run may log for a host, in pushes of pageSize ops (10,000
 * at the default 500). A host's one answer "I hold none of it" named every
 * record, and each merge is an op signed here (tens of µs), logged, pushed
 * and relayed to every peer, all inside one turn of the push chain that this
 * node's own writes wait behind. What is left over is logged by the next
 * runs: a host that truly lacks many records still gets them all.
 */
export const HAVE_PAGES_PER_RUN = 20;

/**
 * The merges logged for one host's reconciliations, kept by its dialer: per
 * record, the digest of the state the last one carried. That state went out
 * as an op the host is pushed by its vector; a host that still names the
 * record as one it lacks gets no new merge until the record changes (it got
 * one of every record at every run: n signed ops for an O(1) answer).
 */
export type LoggedHaves = Map<string, string>;

/** What a reconciliation with one host needs. */
export interface ReconcileRun {
  replica: Replica; link: SyncLink; host: string; url: string; scopes: string[]; pageSize: number;
  telemetry: SyncTelemetry;
  /** The host's reconcile frame from hello: this side's messages must fit it. */
  frame?: number;
  /** The merges logged for this host so far, and how many this run may still log (HAVE_PAGES_PER_RUN pages). */
  have?: { logged: LoggedHaves; left: number };
}

/** What one run found: records fetched (need) and logged for the host (have); on start, where the host's sets were taken. */
export interface ReconcileResult {
  need: number;
  have: number;
  vector?: Vector;
  eventId?: string;
}

/** This side's frame: the default, or the host's when smaller (never under the module's floor). */
function frameFor(host: number | undefined): number {
  const f = Math.min(host ?? RECONCILE_DEFAULTS.frameLimit, RECONCILE_DEFAULTS.frameLimit);
  return Math.max(f, MIN_FRAME_LIMIT);
}

/** The differences of one label: initiate, then answer the host until nothing is left to ask. */
async function differences(o: ReconcileRun, label: string, start: boolean) {
  const local = createReconciler({ set: labelSet(o.replica, label, o.scopes), frameLimit: frameFor(o.frame) });
  const have = new Set<string>();
  const need = new Set<string>();
  let at: { vector?: Vector; eventId?: string } = {};
  let msg: Message | null = local.initiate();
  for (let round = 0; msg && round < MAX_ROUNDS; round++) {
    const ans = (await o.link.call('reconcile', start && round === 0 ? { scope: label, msg, start: true } : { scope: label, msg })) as ReconcileAnswer;
    if (start && round === 0) at = { vector: ans?.vector, eventId: ans?.eventId };
    const step = local.reconcile(ans?.msg);
    if (!step.ok) throw new SyncomError('RECONCILE_MALFORMED', `the host's reconcile answer was refused: ${step.reason}`, { url: o.url });
    for (const id of step.have) have.add(id);
    for (const id of step.need) need.add(id);
    msg = step.next;
  }
  return { have: [...have], need: [...need], ...at, unfinished: msg !== null };
}

/** What fetching a label's differing records found: the digests joined, the ids held for a newer schema, and those the host holds outside this node's scopes. */
interface Fetched {
  digests: Map<string, string>;
  held: Set<string>;
  outside: Set<string>;
}

/**
 * Fetch the records the host holds differently, in pages, and join them as
 * merge ops from the host. The ids only this side holds are asked too: the
 * host names those it holds in a scope this node may not write (a record
 * that moved out of the label), whose merge it would refuse.
 */
async function fetchNeeded(o: ReconcileRun, label: string, ids: string[]): Promise<Fetched> {
  const got: Fetched = { digests: new Map(), held: new Set(), outside: new Set() };
  const via = { url: o.url, node: o.host };
  // At most twice what the host took last: one that took 1 id of every 500 asked made each of its answers cost this node
  // (and the link) a page of ids, about 500 times the ids the run needs (test/hostile/records-taken-cost.spec.ts).
  let ask = o.pageSize;
  for (let i = 0; i < ids.length;) {
    const asked = ids.slice(i, i + ask);
    const ans = (await o.link.call('records', { scope: label, ids: asked })) as { entries?: unknown; taken?: unknown; outside?: unknown; removedScopes?: unknown };
    const entries = Array.isArray(ans?.entries) ? ans.entries : [];
    // The scopes of tombstones this node never held live, as the host holds them: '*' had them reach every scope's peers.
    const removedScopes = isRemovedScopes(ans?.removedScopes, entries.length) ? (ans.removedScopes as Record<string, string>) : undefined;
    // A host with a smaller page takes fewer: ask the rest again (an older answer without taken took them all).
    const taken = Number.isSafeInteger(ans?.taken) ? (ans.taken as number) : asked.length;
    if (taken <= 0) throw new SyncomError('RECONCILE_MALFORMED', 'the host took none of the records asked', { url: o.url });
    i += Math.min(taken, asked.length);
    ask = Math.min(o.pageSize, 2 * taken);
    await Promise.all(joinPage(o.replica, entries, o.host, via, { heldIds: got.held, removedScopes }));
    for (const e of entries as Entry[]) got.digests.set(e.id, entryDigest(e));
    if (Array.isArray(ans?.outside)) for (const id of ans.outside) if (typeof id === 'string') got.outside.add(id);
  }
  return got;
}

/**
 * Log a merge op of this node's current state of each record the host holds
 * differently; the ordinary push carries them. A record whose fetched state
 * already covers ours (same digest once joined) needs none, and one the host
 * holds outside this node's scopes gets none: the host would refuse it and
 * stop this node's stream of the scope there (SCOPE-19). Nor does a state
 * logged for this host already (LoggedHaves); at most `have.left` are logged.
 */
async function logHave(o: ReconcileRun, label: string, ids: string[], fetched: Fetched): Promise<number> {
  const { replica, have } = o;
  const out: Promise<void>[] = [];
  for (const id of ids) {
    if (have && have.left <= 0) break;
    const e = replica.current(id);
    // A record whose newer state is held here differs at every run until the upgrade; a merge of ours each run would only repeat (our ops went as ops).
    if (!e || replica.isSealed(id) || fetched.outside.has(id) || fetched.held.has(id) || !inLabel(replica.scopeOf(id), label, o.scopes)) continue;
    const digest = entryDigest(e);
    if (fetched.digests.get(id) === digest || have?.logged.get(id) === digest) continue;
    // The op carries the entry as the wire has it (plain maps); the record stays as it is.
    const op = replica.makeOp({ type: 'merge', id, data: plainEntry(e) as never }, mergeScope(replica, id, e));
    // Remembered once logged: a merge that failed to commit is made again at the next run.
    out.push(replica.submit({ op, flags: 0, via: null, after: e }).then(() => void have?.logged.set(id, digest)));
    if (have) have.left--;
  }
  await Promise.all(out);
  return out.length;
}

/** Reconcile one label with the host: find, fetch and join what differs, log what the host lacks. */
export function reconcileLabel(o: ReconcileRun, label: string, start = false): Promise<ReconcileResult> {
  return o.telemetry.reconciliation('dialer', o.url, async () => {
    const d = await differences(o, label, start);
    const fetched = await fetchNeeded(o, label, [...new Set([...d.need, ...d.have])]);
    const have = await logHave(o, label, d.have, fetched);
    // A run left unfinished is reported, not taken as complete (an incremental bootstrap falls back to the snapshot),
    // but what it found is repaired first: an honest host can need more rounds (a million records, half differing: 66),
    // and a run that took nothing left such a store unrepaired for good (test/sync/reconcile-unfinished.spec.ts).
    if (d.unfinished) throw new SyncomError('RECONCILE_UNFINISHED', `the host did not end the reconciliation of ${label} in ${MAX_ROUNDS} rounds`, { url: o.url });
    return { need: d.need.filter((id) => fetched.digests.has(id)).length, have, vector: d.vector, eventId: d.eventId };
  });
}

/** Reconcile every label the node was registered with (anti-entropy). */
export async function reconcileAll(o: ReconcileRun): Promise<ReconcileResult> {
  const sum: ReconcileResult = { need: 0, have: 0 };
  for (const label of reconcileLabels(o.scopes)) {
    const r = await reconcileLabel(o, label);
    sum.need += r.need;
    sum.have += r.have;
  }
  return sum;
}

/** The default anti-entropy interval: 3 minutes. */
export const ANTI_ENTROPY_INTERVAL = 180_000;

/**
 * The anti-entropy timer of one dialer: `run` every `ms` (default 3 minutes;
 * 0 disables it). Unref'd: it never keeps a process alive.
 */
export function antiEntropyTimer(ms: number | undefined, run: () => void): NodeJS.Timeout | undefined {
  const every = ms ?? ANTI_ENTROPY_INTERVAL;
  if (!(every > 0)) return undefined;
  const t = setInterval(run, every);
  t.unref?.();
  return t;
}

/** What a queued anti-entropy run needs of its dialer. */
export interface ReconcileOwner {
  readonly greeted: boolean;
  turn<T>(fn: () => Promise<T>): Promise<T>;
  failed(e: unknown): Promise<void>;
  pushLacking(): Promise<void>;
  reconcileRun(): ReconcileRun;
}

/**
 * A dialer's anti-entropy runs on its push chain: reconcile every granted
 * scope, then push what the host lacks. One run waiting for its turn serves
 * every call until it starts (it reads the store when it runs): a host slower
 * than the interval (the engine sets no call timeouts) had a run queued at
 * every tick, all run back to back once it answered, the node's own pushes
 * waiting behind them.
 */
export class ReconcileTurns {
  private queued?: Promise<void>;

  constructor(private readonly d: ReconcileOwner) {}

  next(): Promise<void> {
    if (this.queued) return this.queued;
    const { d } = this;
    const run = d.turn(async () => {
      this.queued = undefined;
      try {
        await reconcileAll(d.reconcileRun());
      } catch (e) {
        await d.failed(e);
        // A failed reconciliation says nothing of the pushes, yet failed() marks the host behind: a quiet node stayed so
        // (synced() pending) until its next write. The push below settles it, unless the link is gone, a 428 greeted
        // and pushed again already, or a 429 set its own retry.
        const status = (e as { status?: number })?.status;
        if (!d.greeted || status === 428 || status === 429) return;
      }
      await d.pushLacking().catch((e: unknown) => d.failed(e));
    });
    this.queued = run;
    return run;
  }
}

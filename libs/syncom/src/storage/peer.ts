import { SyncomError } from '../errors';
import { applyOp, type ApplyResult, type Entry, isEntry, isTag, newestTs, raisesPurge, stampOfTag } from '../crdt';
import { FLAG_GRANTED } from '../log/op-log';
import { isPurgeMarkerOp } from '../log/seal';
import { classifyOp, noteTouched } from '../log/vector';
import { checkOp, DEFAULT_MAX_SKEW, FLAG_HELD, FLAG_SKIPPED, isScrubbed, scrubForPurge, tooFarAhead, type Verdict, verifyOps } from '../op';
import { keyOrigin, type Op, type Vector } from '../op/types';
import type { Via } from './commit';
import type { StorageHooks } from './options';
import { partsOf, type StorageParts } from './parts';
import { peerOptions } from './peer-options';
import type { Storage } from './storage';
import { asInvalid, checkUpdate } from './local-ops';
import { urlLabel } from '../telemetry/url-label';
import type { JudgeBudget } from '../schema/types';

/** The counts of one page applied (the `sync` event's fields). */
export interface ApplyCounts {
  applied: number;
  skipped: number;
  duplicates: number;
  gaps: number;
  malformed: number;
  unsigned: number;
  forged: number;
  outOfScope: number;
  /** Logged and relayed, applied once this node's schema allows (held for a newer one, SCHEMA-7). */
  held: number;
}

/** What applying a peer's page did. */
export interface PeerApplyResult extends ApplyCounts {
  /** The vector keys the page touched, at their new seqs (HOST-20), and those of its duplicates the host has committed, at theirs. */
  touched: Vector;
  /** BAD_SIGNATURE / UNSIGNED, once per page, for the sync layer to report (SIG-17). */
  errors: SyncomError[];
  /** A beforeApply threw: nothing of the page was taken (GUAR-16). */
  refused?: SyncomError;
  /** What `budget` threw (PeerApplyOptions): the page was taken up to the op it refused, counted here; the rest comes again. */
  limited?: SyncomError;
  /** Of `malformed`, the ops refused for a stamp too far ahead (SKEW): telemetry's own reason. */
  skew: number;
  /** Of `skipped`, the ops the validator failed (OP_INVALID): telemetry's own reason. */
  invalid: number;
}

export interface PeerApplyOptions {
  via: Via;
  /** Override of sync.signatures. */
  signatures?: 'verify' | 'require' | false;
  /** The node whose feed this page came from: its own advance ops grant their vector (BOOT-11). */
  feedHost?: string;
  /**
   * A host's scope boundary: false refuses the op as outOfScope (SCOPE-12, SCOPE-14). `after` is
   * applyOp(entry, op).entry when the page's walk made it (not for an advance or a scrubbed op).
   */
  inScope?: (op: Op, entry: Entry | undefined, after?: Entry) => boolean;
  /**
   * Lets the page go while beforeApply has not answered (a dialer's stop, a host unit's end): nothing of
   * it is taken, the hook is asked no more and what it answers later is dropped. Never a timeout: a slow
   * hook is waited for as long as the node runs. Not for applyPeerOps, whose options are checked.
   */
  signal?: AbortSignal;
  /** What judging type changes anew may spend (a host unit's peer's rate, docs/security.md): where it throws, the page is taken up to that op and answered with its error as `limited`. Not for applyPeerOps. */
  budget?: JudgeBudget;
}

/**
 * Report the ops of a page that did not even unpack (not 18 slots, a bad
 * shape): one OP_MALFORMED on storage.on('error') with their count and the
 * first reason, as checkAll does for the ops that unpacked but failed a check.
 */
export function reportUnpackedOps(storage: StorageParts, page: { malformed: number; reason?: string }, url: string): void {
  if (page.malformed === 0) return;
  storage.events.emit('error', new SyncomError('OP_MALFORMED', `${page.malformed} op(s) malformed: ${page.reason ?? 'not an op'}`, { count: page.malformed, url }));
}

const zero = (): ApplyCounts => ({ applied: 0, skipped: 0, duplicates: 0, gaps: 0, malformed: 0, unsigned: 0, forged: 0, outOfScope: 0, held: 0 });

/**
 * What is wrong with a peer's op that passed checkOp, or undefined. The
 * record keeps what a merge's entry and a remove's tags carry, and a
 * snapshot page, reconcile page or record file holding an entry a peer
 * cannot read is refused whole: a merge's data must be an entry of its id (a
 * scrubbed one has none), a remove may name only add tags (isTag); no stamp
 * in either may be more than maxSkew ahead (SKEW), as no op's ts may be. A
 * log entry is not held to this (checkShape): logs written before read on.
 */
function payloadFault(op: Op, now: number, maxSkew: number): { code: 'OP_MALFORMED' | 'SKEW'; reason: string } | undefined {
  if (isScrubbed(op)) return undefined;
  let ts = 0;
  if (op.type === 'merge') {
    if (!isEntry(op.data, op.id)) return { code: 'OP_MALFORMED', reason: 'a merge op without an entry' };
    ts = newestTs(op.data);
  } else if (op.type === 'remove') {
    for (const [, tags] of op.value as [unknown, string[]][]) {
      for (const tag of tags) {
        if (!isTag(tag)) return { code: 'OP_MALFORMED', reason: 'remove: no add tag' };
        ts = Math.max(ts, stampOfTag(tag)[0]);
      }
    }
  }
  return tooFarAhead(ts, now, maxSkew) ? { code: 'SKEW', reason: `it holds ts ${ts}, more than ${maxSkew} ms ahead of ${now}, or past the latest date` } : undefined;
}

function checkAll(storage: StorageParts, input: readonly unknown[], counts: ApplyCounts & { skew: number }): Op[] {
  const { clock, options } = storage;
  const ops: Op[] = [];
  const bad = new Map<'OP_MALFORMED' | 'SKEW', { first: unknown; count: number; reason: string }>();
  const maxSkew = options.sync?.maxSkew ?? DEFAULT_MAX_SKEW;
  for (const raw of input) {
    const now = clock.now();
    const c = checkOp(raw, { now, maxSkew });
    const fault = c.ok ? payloadFault(c.op, now, maxSkew) : c;
    if (!fault) { ops.push((c as { op: Op }).op); continue; }
    counts.malformed++;
    if (fault.code === 'SKEW') counts.skew++;
    const { code } = fault;
    const b = bad.get(code) ?? { first: raw, count: 0, reason: fault.reason };
    b.count++;
    bad.set(code, b);
  }
  for (const [code, b] of bad) storage.events.emit('error', new SyncomError(code, `${b.count} op(s) malformed: ${b.reason}`, { op: b.first, count: b.count }));
  return ops;
}

/**
 * The ops a page's verdicts keep, counting the forged and the unsigned; `first`
 * keeps the first of each for the error. An unsigned op is refused under
 * 'require', and under 'verify' too when its origin is this node (`self`): a
 * node takes its own ops back from a peer only as it signed them (REWOUND),
 * else any token holder could write in this node's name and cut its stream.
 */
function judge(ops: Op[], verdicts: Verdict[] | undefined, o: { mode: 'verify' | 'require' | false; self: string }, counts: ApplyCounts, first: { forged?: Op; unsigned?: Op }): Op[] {
  if (!verdicts) return ops;
  const kept: Op[] = [];
  verdicts.forEach((v, i) => {
    if (v === 'forged') { counts.forged++; first.forged ??= ops[i]; }
    else if (v === 'unsigned' && (o.mode === 'require' || ops[i].origin === o.self)) { counts.unsigned++; first.unsigned ??= ops[i]; }
    else kept.push(ops[i]);
  });
  return kept;
}

/** Why an unsigned op is refused under 'verify': it names this node as its origin. */
function ownName(op: Op, url: string, self: string): string {
  return op.origin === self ? `, the first in this node's own name: ${urlLabel(url)} sent ops as this node without its signature` : '';
}

/** BAD_SIGNATURE / UNSIGNED, once per page (SIG-17). */
function signatureErrors(counts: ApplyCounts, first: { forged?: Op; unsigned?: Op }, url: string, self: string): SyncomError[] {
  const errors: SyncomError[] = [];
  if (first.forged) errors.push(new SyncomError('BAD_SIGNATURE', `${counts.forged} op(s) failed their signature`, { op: first.forged, count: counts.forged, url }));
  if (first.unsigned) errors.push(new SyncomError('UNSIGNED', `${counts.unsigned} unsigned op(s) refused${ownName(first.unsigned, url, self)}`, { op: first.unsigned, count: counts.unsigned, url }));
  return errors;
}

type BeforeApply = NonNullable<StorageHooks['beforeApply']>;

function beforeApplyOf(storage: StorageParts): BeforeApply | undefined {
  return storage.options.hooks?.beforeApply ?? storage.options.sync?.hooks?.beforeApply;
}

/**
 * Each op's answer, or undefined once `signal` let the page go while the hook had not answered
 * them all: the hook is asked no more, and what it answers (or throws) later is dropped.
 */
async function decide(hook: BeforeApply | undefined, ops: Op[], via: Via, signal?: AbortSignal): Promise<boolean[] | undefined> {
  if (!hook) return ops.map(() => true);
  let gone!: () => void;
  // One waiter a page, taken off when it is decided: the signal (a host unit's) may outlive many, and has many at once.
  const letGo = new Promise<false>((resolve) => signal && waitersOf(signal).add((gone = () => resolve(false))));
  try {
    const out: boolean[] = [];
    for (const op of ops) {
      if (signal?.aborted) return undefined;
      const answer = hook({ op, peer: via });
      // A plain boolean needs no race: only a promise can keep the page waiting.
      out.push((signal && typeof answer !== 'boolean' ? await Promise.race([answer, letGo]) : await answer) !== false);
    }
    return signal?.aborted ? undefined : out;
  } finally {
    if (signal) waitersOf(signal).delete(gone);
  }
}

/** The pages waiting on each signal's abort: one listener a signal, not one a page (past 10 listeners Node warns of a leak). */
const signalWaiters = new WeakMap<AbortSignal, Set<() => void>>();

function waitersOf(signal: AbortSignal): Set<() => void> {
  let set = signalWaiters.get(signal);
  if (!set) {
    const waiting = (set = new Set());
    signalWaiters.set(signal, waiting);
    signal.addEventListener('abort', () => waiting.forEach((w) => w()), { once: true });
  }
  return set;
}

/** What the schema's validator says of a peer's op on `entry` (undefined: nothing, or no validator); @throws as `budget.open()`. */
export function validatorSays(storage: Pick<StorageParts, 'schema'>, op: Op, entry: Entry | undefined, budget?: JudgeBudget): string[] | undefined {
  const schema = storage.schema;
  if (!schema || isScrubbed(op)) return undefined;
  if (op.type === 'write') { const r = schema.validateWrite(op.data ?? {}); return r.ok ? undefined : r.errors; }
  if (op.type === 'set') {
    const r = checkUpdate(schema, entry, op.data ?? {}, budget);
    return r.ok ? undefined : r.errors;
  }
  return undefined;
}

/**
 * A peer's op for an id this node keeps sealed (GUAR-19, like BOOT-8 for a
 * page): skipped — logged and relayed, so its origin's stream has no hole,
 * and counted — and the sealed record stays as it is here.
 */
function keptSealed(storage: StorageParts, op: Op): boolean {
  return op.type !== 'advance' && storage.sealed.has(op.id);
}

/** What a page's scope walk applied: an op's entry before it and the result, reused when the record is still that entry. */
type Walked = Map<Op, { before: Entry | undefined; result: ApplyResult }>;

/** Whether `op` is inside the boundary on `entry` (applied to it; one that cannot apply is judged on the record alone, as withinScope does). */
function inScopeOn(inScope: NonNullable<PeerApplyOptions['inScope']>, op: Op, entry: Entry | undefined): boolean {
  let after: Entry | undefined;
  try { after = applyOp(entry, op).entry; } catch { /* inScope judges it on the record alone */ }
  return inScope(op, entry, after);
}

/**
 * Whether an op is granted (its vector raises this node's, BOOT-11): the feed
 * host's own advance, unless it names a stream of this node past what this
 * node has queued. A granted vector moves the streams it names, and only
 * this node moves its own (a hostile host's advance of a million of them made
 * every later own op a gap at every honest peer); an honest host never names
 * them past it (a restored directory's REWOUND at hello raised them first).
 * Not granted, it is still logged and relayed as any node's advance (BOOT-12).
 */
function grants(storage: StorageParts, op: Op, feedHost: string | undefined): boolean {
  if (op.type !== 'advance' || op.origin !== feedHost || !op.vector) return false;
  const { id } = storage.keys;
  const queued = storage.committer.pvec;
  for (const k in op.vector) if (keyOrigin(k) === id && !((queued[k] ?? 0) >= op.vector[k])) return false;
  return true;
}

/** Queue one checked op; returns its commit promise, or undefined for a duplicate or a gap. */
function submitOne(storage: StorageParts, op: Op, allowed: boolean, o: PeerApplyOptions, counts: ApplyCounts & { invalid: number }, walked?: Walked): Promise<void> | undefined {
  const { committer, schema, clock, events } = storage;
  const cls = classifyOp(committer.pvec, op);
  if (cls !== 'next') { counts[cls === 'duplicate' ? 'duplicates' : 'gaps']++; return undefined; }
  const entry = committer.current(op.id);
  // The walk judged the op on the record as the page's earlier ops would leave it (a sealed one as unknown);
  // one of them was dropped since (a gap, a duplicate, beforeApply, the validator, a hold): judged again on the
  // record it meets, before anything logs it (a held or skipped op is logged and relayed too).
  const w = walked?.get(op);
  const base = storage.sealed.has(op.id) ? undefined : entry;
  const walkHeld = w !== undefined && w.before === base;
  if (o.inScope && !walkHeld && op.type !== 'advance' && !isScrubbed(op) && !inScopeOn(o.inScope, op, base)) { counts.outOfScope++; return undefined; }
  let flags = grants(storage, op, o.feedHost) ? FLAG_GRANTED : 0;
  let after: Entry | undefined;
  let logged = op;
  const invalid = validatorSays(storage, op, entry, o.budget);
  // A peer's op of an id kept sealed here is the peer's record, purged here or not: skipped, logged and relayed as it came.
  if (entry?.purged && op.type !== 'purge' && !keptSealed(storage, op)) {
    // Nothing lands on a purged record (OPS-10) but a merge's newer purge marker: the marker is then the newest
    // purge's, whichever came first (GUAR-1). A marker alone carries no payload, and the log scrub keeps it too.
    const raw = op.type === 'merge' && !isScrubbed(op) ? (op.data as unknown as Entry) : undefined;
    if (raw && allowed && raisesPurge(entry, raw)) { after = applyOp(entry, op).entry; counts.applied++; }
    else { flags |= FLAG_SKIPPED; counts.skipped++; }
    logged = isScrubbed(op) || isPurgeMarkerOp(op) ? op : scrubForPurge(op);
  }
  else if (keptSealed(storage, op)) { flags |= FLAG_SKIPPED; counts.skipped++; }
  // A purge is never held: it carries no data a schema could judge, and erasure must not wait for an upgrade.
  // An op behind a held one of its stream waits with it (held-streams.ts), whatever its own version.
  else if (op.type !== 'purge' && schema && schema.ahead === 'hold' && storage.held.holds(op)) { flags |= FLAG_HELD; storage.held.note(op); counts.held++; }
  else if (!allowed || invalid) {
    flags |= FLAG_SKIPPED;
    counts.skipped++;
    if (invalid) {
      counts.invalid++;
      events.emit('error', new SyncomError('OP_INVALID', `a peer's op fails the validator: ${invalid.join('; ')}`, { op, url: o.via.url }));
    }
  } else if (!isScrubbed(op) && op.type !== 'advance') {
    const r = walkHeld ? (w as { result: ApplyResult }).result : applyOp(entry, op);
    after = r.entry;
    for (const field of r.refused) events.emit('error', new SyncomError('OP_REFUSED', `${op.type} refused for field ${field}: it is another kind here`, { op, field, url: o.via.url }));
    counts.applied++;
  } else counts.applied++;
  clock.observe(op.type === 'merge' && after ? Math.max(op.ts, after.latest[0]) : op.ts);
  return committer.submit({ op: logged, flags, via: o.via, after });
}

/**
 * The ops of a page inside a host's scope boundary, counting the others outOfScope. Each op is
 * judged on the record as the page's earlier kept ops leave it (they are not committed yet), so a
 * record written and then changed in one page is scoped as it will be. A sealed record plays no
 * part in what a peer may write: its op is judged as for an unknown id (GUAR-19).
 */
function withinScope(storage: StorageParts, ops: Op[], inScope: NonNullable<PeerApplyOptions['inScope']>, counts: ApplyCounts, walked: Walked): Op[] {
  const page = new Map<string, Entry | undefined>();
  const seen = (id: string) => (storage.sealed.has(id) ? undefined : page.has(id) ? page.get(id) : storage.committer.current(id));
  return ops.filter((op) => {
    const entry = seen(op.id);
    // Applied once here for the boundary, the page's state and, when the record is still `entry`, the op's commit.
    let result: ApplyResult | undefined;
    if (op.type !== 'advance' && !isScrubbed(op)) {
      try { result = applyOp(entry, op); } catch { /* inScope applies it again and refuses it; else judged on the committed record */ }
    }
    if (!inScope(op, entry, result?.entry)) return (counts.outOfScope++, false);
    if (result) { page.set(op.id, result.entry); walked.set(op, { before: entry, result }); }
    return true;
  });
}

/**
 * Apply a peer's page through the one pipeline (the engine's one path for
 * peer ops): shape and skew (malformed), signatures, the scope boundary, the
 * beforeApply hook, duplicates and gaps, validators, kind clashes per field.
 * Refused ops are neither logged nor relayed; skipped ones are logged, not applied.
 * The whole page is verified and judged before any of it is queued, so a
 * beforeApply hook that throws leaves nothing of it taken (GUAR-16), nor one
 * that has not answered when `o.signal` lets the page go.
 * @throws SyncomError CLOSED when `o.signal` let the page go: it comes again.
 */
export async function applyPeerPage(storage: StorageParts, input: readonly unknown[], o: PeerApplyOptions): Promise<PeerApplyResult> {
  const counts = { ...zero(), skew: 0, invalid: 0 };
  const mode = o.signatures ?? storage.options.sync?.signatures ?? 'verify';
  const checked = checkAll(storage, input, counts);
  const hook = beforeApplyOf(storage);
  // The whole page at once: verifying chunk k+1 while chunk k was applied was measured slower on
  // hub ingest (0.61 of verify at 64-op chunks, 0.55 at 256, against 0.655), smaller commit batches costing more.
  const first: { forged?: Op; unsigned?: Op } = {};
  let ops = judge(checked, mode === false ? undefined : await verifyOps(checked), { mode, self: storage.keys.id }, counts, first);
  const walked: Walked = new Map();
  if (o.inScope) ops = withinScope(storage, ops, o.inScope, counts, walked);
  let allowed: boolean[] | undefined;
  try {
    allowed = await decide(hook, ops, o.via, o.signal);
  } catch (e) {
    return { ...counts, touched: {}, errors: signatureErrors(counts, first, o.via.url, storage.keys.id), refused: new SyncomError('PAGE_FAILED', `beforeApply threw: ${(e as Error)?.message}`, { cause: e, url: o.via.url }) };
  }
  // Nothing is queued yet: a page let go lands nothing, whatever the hook answers later.
  if (!allowed) throw new SyncomError('CLOSED', 'let go before beforeApply answered', { url: o.via.url });
  const touched: Vector = {};
  const inFlight: Op[] = [];
  // Await every op's commit, not only the last: a failed append rejects them all, and none may go unhandled.
  const commits: Promise<void>[] = [];
  let stopped: { error: unknown } | undefined;
  let limited: unknown;
  const budget = o.budget;
  const taking = budget ? { ...o, budget: { charge: (n: number) => budget.charge(n), open: () => { try { budget.open(); } catch (e) { throw (limited = e); } } } } : o;
  // The budget's refusal comes before its op is queued: the ops before it stand, the rest come again.
  for (let i = 0; i < ops.length && !stopped; i++) {
    try {
      const p = submitOne(storage, ops[i], allowed[i], taking, counts, walked);
      if (p) commits.push(p);
      if (noteTouched(touched, ops[i], p !== undefined, storage.committer)) inFlight.push(ops[i]);
    } catch (error) { stopped = { error }; }
  }
  // A duplicate of an op another page queued is named once that op is logged: answered before, the pusher
  // counted it missing here until its next hello (test/sim/found-by-model.spec.ts).
  const drained = inFlight.length ? storage.committer.drained() : undefined;
  await Promise.all(commits);
  if (drained) await drained.then(() => inFlight.forEach((op) => noteTouched(touched, op, false, storage.committer)));
  if (counts.applied + counts.skipped > 0) storage.events.emit('apply', { peer: o.via, applied: counts.applied, skipped: counts.skipped });
  if (stopped && stopped.error !== limited) throw stopped.error;
  return { ...counts, touched, errors: signatureErrors(counts, first, o.via.url, storage.keys.id), ...(stopped && { limited: stopped.error as SyncomError }) };
}

/**
 * Apply a peer's page to a storage through the one pipeline (see
 * applyPeerPage): what a host of your own calls with the ops a peer pushed.
 * Its arguments are checked before any op is: a call refused half-way (once
 * ops had landed) would read as a failed write of ops that stand.
 * @throws SyncomError INVALID_ARGUMENT (a rejection) for a storage open() did not make, input that is no array,
 * or options without `via: { url, node }` (strings) or with a bad `signatures`, `feedHost` or `inScope`.
 */
export async function applyPeerOps(storage: Storage, input: readonly unknown[], o: PeerApplyOptions): Promise<PeerApplyResult> {
  const parts = asInvalid('applyPeerOps() takes a storage made by open()', () => partsOf(storage));
  // A copy, read once here: an element whose getter throws is a wrong call, not a malformed op.
  const ops = asInvalid('applyPeerOps() takes an array of ops', () => (Array.isArray(input) ? Array.from(input) : undefined));
  if (!ops) throw new SyncomError('INVALID_ARGUMENT', 'applyPeerOps() takes an array of ops');
  return applyPeerPage(parts, ops, asInvalid('applyPeerOps() options', () => peerOptions(o)));
}

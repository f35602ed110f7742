import type { Entry } from '../crdt';
import type { LogEntry, SegmentInfo } from '../log';
import type { CursorCheck } from '../log/op-log';
import type { Op, Vector } from '../op/types';
import type { Schema } from '../schema';
import type { Backend } from '../backend/types';
import type { Pending, SubmitGroup } from './commit';
import { makeOwnOp, type OwnOpBody } from './make-op';
import type { OpenOptions } from './options';
import type { StorageEvents, StorageParts } from './parts';
import { applyPeerPage, type PeerApplyOptions, type PeerApplyResult, reportUnpackedOps } from './peer';
import { type RecordDigests, recordDigests } from './digests';
import { platform } from '../platform';
import { helloProofText } from '../op/sign';
import { FLAG_HELD } from '../op/pack';
import { SignedOut } from './signed-out';
import { setVectorKey } from '../log/vector';
import { SyncomError } from '../errors';

/**
 * The furthest a REWOUND moves an own stream: 2^52, half the seqs a stream
 * has. No node writes that many (142 years at a million writes a second),
 * and the half left holds as many again.
 */
export const MAX_REWIND = 2 ** 52;

/** An op for the commit pipeline: what a join, a hold or an adopted vector submits. */
export type ReplicaSubmit = Omit<Pending, 'resolve' | 'reject'>;

/** How the log lies in its files (Replica.describeLog). */
export interface LogShape {
  /** The highest seq of this node's sealed stream (GUAR-19). */
  sealedSeq: number;
  /** The sealed segments: positions and stamps. */
  segments: { from: number; to: number; minTs: number; maxTs: number }[];
  /** The batches appended and not sealed yet. */
  openBatches: { from: number; to: number }[];
}

/**
 * The replica port: everything replication (dialing and hosting), the CLI
 * and the apps read of a storage or hand to it, beside the storage API. The
 * log from a position and its appends; the vectors, epoch and floor; the
 * committed records (a snapshot's consistent point); peer pages and joined
 * state into the one commit pipeline; own ops made; the clock; retention
 * pins. The log object, the committer and the clock stay inside storage/.
 */
export class Replica {
  private nonce = newNonce();

  private readonly signedOut: SignedOut;

  constructor(private readonly p: StorageParts) {
    this.signedOut = new SignedOut(p.log, p.keys.id, p.keys.signPrivate, p.options.sync?.signatures !== false);
  }

  /**
   * This process's name for the log's vector history: a hello answer's
   * vector mark is `<nonce>.<head>`, and a later hello that names it is sent
   * only the entries changed since. A new one at every open (a directory
   * restored from a copy reuses positions) and whenever the vector moves
   * without an entry (raiseOwnStreams), so a mark never stands for another
   * history.
   */
  get vectorNonce(): string {
    return this.nonce;
  }

  /** This node's id (SIG-2). */
  get id(): string {
    return this.p.keys.id;
  }

  /**
   * This node's signature of a host's hello challenge (hello-proof.ts): the
   * key stays in storage (op/sign.ts' helloProofText says what is signed).
   */
  proveHello(challenge: string): Promise<string> {
    return platform().ed25519.sign(this.p.keys.signPrivate, helloProofText(challenge, this.id));
  }

  /** open()'s options, as given. */
  get options(): OpenOptions {
    return this.p.options;
  }

  /** The file backend: where the sync registry keeps its files. */
  get backend(): Backend {
    return this.p.backend;
  }

  get schema(): Schema | undefined {
    return this.p.schema;
  }

  get isClosed(): boolean {
    return this.p.state.closed;
  }

  /** The log's epoch (LOG-4). */
  get epoch(): string {
    return this.p.log.epoch;
  }

  /** The last position retention dropped. */
  get floor(): number {
    return this.p.log.floor;
  }

  /** The last position logged. */
  get head(): number {
    return this.p.log.head;
  }

  /** Everything logged: the highest seq per stream (do not change it). */
  get vector(): Readonly<Vector> {
    return this.p.log.vector;
  }

  /** Held ops retention dropped before an upgrade applied them (GUAR-27). */
  get heldLost(): number {
    return this.p.log.heldLost;
  }

  /** Whether any logged op may wait for a newer schema (false: none does). */
  get holdsAny(): boolean {
    return this.p.held.any;
  }

  /** The schema version a logged entry waits for (held for it, or behind such an op of its stream), or undefined. */
  heldFor(e: Pick<LogEntry, 'op' | 'flags'>): number | undefined {
    return this.p.held.waitsFor(e);
  }

  /** Scrubs so far that replaced logged ops in place: entries read before the count moved may hold a purged payload. */
  get scrubs(): number {
    return this.p.log.scrubs;
  }

  /** The audit chain's head (GUAR-23). */
  get chain(): string {
    return this.p.log.chain;
  }

  /** How the log lies in its files, for tools that describe a storage (the CLI's info). */
  describeLog(): LogShape {
    const { log } = this.p;
    return {
      sealedSeq: log.sealedSeq,
      segments: log.segments.map(({ from, to, minTs, maxTs }) => ({ from, to, minTs, maxTs })),
      openBatches: log.batches.map(({ from, to }) => ({ from, to })),
    };
  }

  /** The event id of a position (the head by default). */
  eventId(pos?: number): string {
    return this.p.log.eventId(pos);
  }

  /** Where a subscriber's cursor stands in this log. */
  cursor(eventId: unknown): CursorCheck {
    return this.p.log.cursor(eventId);
  }

  /** The retained entries after a position, at most `limit`. */
  read(after: number, limit?: number): LogEntry[] {
    return this.p.log.read(after, limit);
  }

  /** Call `listener(from, to)` after every append; returns the unsubscribe. */
  onAppend(listener: (from: number, to: number) => void): () => void {
    this.p.log.appended.add(listener);
    return () => this.offAppend(listener);
  }

  /** Call `listener` after each purge scrub that replaced logged ops; returns the unsubscribe. */
  onScrub(listener: () => void): () => void {
    this.p.log.scrubbed.add(listener);
    return () => void this.p.log.scrubbed.delete(listener);
  }

  /** Stop calling a listener onAppend() added. */
  offAppend(listener: (from: number, to: number) => void): void {
    this.p.log.appended.delete(listener);
  }

  /** Call `listener` once, when an append brings the head to `pos` or past it (in a microtask when it is there already). */
  wakeAt(pos: number, listener: () => void): void {
    this.p.log.wakes.add(pos, listener, this.p.log.head);
  }

  /** Take back a wakeAt() not called yet. */
  cancelWake(pos: number, listener: () => void): void {
    this.p.log.wakes.cancel(pos, listener);
  }

  /** Call `listener` for every op at its commit point, after its record was rescoped; returns the unsubscribe. */
  onChange(listener: (...args: StorageEvents['change']) => void): () => void {
    return this.p.events.on('change', listener);
  }

  /** Keep the segments `pinned` says retention must keep (a dialer's unacked own ops, LOG-16). */
  pinRetention(pinned: (segment: SegmentInfo, entries: readonly LogEntry[]) => boolean): void {
    this.p.log.options.pinned = pinned;
  }

  /**
   * Whether an own stream may be moved to `seq` (raiseOwnStreams): at most
   * MAX_REWIND, so that a stream moved there still has seqs for centuries of
   * writes. A claim near the safe integers' end (a host's hello vector is
   * its word alone) had left the stream two writes, then none: every later
   * write of it failed OP_INVALID, for good.
   */
  canRaiseOwnStream(seq: number): boolean {
    return Number.isSafeInteger(seq) && seq >= 0 && seq <= MAX_REWIND;
  }

  /**
   * Move own streams past what a host holds of them (REWOUND, LOG-23):
   * nothing minted after collides with what the host has. The moves are made
   * at once; the promise resolves once log/index.json keeps them, written once
   * for all of them (once a stream, a hello naming 4,000 own streams took 13 s
   * of CPU: test/hostile/rewound-cost.spec.ts), so that a restart before the
   * next own write does not sign the host's seqs again. A failed write of it
   * is reported (IO_ERROR), and the promise resolves all the same.
   * @throws RangeError for a seq canRaiseOwnStream refuses (the caller checks a host's claim first); nothing moves then.
   */
  raiseOwnStreams(moves: Readonly<Vector>): Promise<void> {
    const keys = Object.keys(moves);
    const wild = keys.find((k) => !this.canRaiseOwnStream(moves[k]));
    if (wild !== undefined) throw new RangeError(`an own stream cannot be moved to ${moves[wild]}: no seq would follow it`);
    const kept = this.p.log.raise(moves).catch((e: Error) => {
      this.p.events.emit('error', new SyncomError('IO_ERROR', `log/index.json was not written (${e?.message}): a restart before the next own write forgets the REWOUND's move`, { cause: e }));
    });
    this.nonce = newNonce();
    const { committer } = this.p;
    // The committed vector (a snapshot's) moves too, as a reopen reads it from the log's: short of the move, a
    // snapshot served before the next own op named the stream short of it, and its dialer took that op as a gap.
    for (const k of keys) for (const v of [committer.pvec, committer.cvec]) if (!((v[k] ?? 0) >= moves[k])) setVectorKey(v, k, moves[k]);
    return kept;
  }

  /** The committed records (the state a snapshot serves). */
  get records(): ReadonlyMap<string, Entry> {
    return this.p.committer.committed;
  }

  /** What the committed records cover: a snapshot's vector. */
  get committedVector(): Readonly<Vector> {
    return this.p.committer.cvec;
  }

  /** The last log position the committed records include: a snapshot's point. */
  get committedHead(): number {
    return this.p.committer.chead;
  }

  /** A record's entry as the next op sees it (queued ops included). */
  current(id: string): Entry | undefined {
    return this.p.committer.current(id);
  }

  /** Queue an op into the commit pipeline; resolves at its commit point. */
  submit(pending: ReplicaSubmit): Promise<void> {
    // A held merge (join-hold.ts) is noted as a peer's held op is (peer.ts), and as the next open notes it (HeldStreams.of):
    // holdsAny reads it, and its stream's later ops wait behind it.
    if ((pending.flags ?? 0) & FLAG_HELD) this.p.held.note(pending.op);
    return this.p.committer.submit(pending);
  }

  /** Queue ops one by one under one promise (a joined page's merges): see Committer.group. */
  submitGroup(): SubmitGroup {
    return this.p.committer.group();
  }

  /** Resolves once the commit pipeline is empty. */
  idle(): Promise<void> {
    return this.p.committer.idle();
  }

  /**
   * Resolves once every op among `entries` logged before its signature (a
   * joined snapshot page's merges) is signed; undefined when none waits. What
   * sends own ops out awaits it: none leaves the node unsigned.
   */
  whenSigned(entries: readonly LogEntry[]): Promise<void> | undefined {
    return this.p.committer.late.whenSigned(entries);
  }

  /** Resolves once no op of this node waits for its signature (a bootstrap's merges are signed in the background), or the signing of those that wait failed (UNSIGNED; tried again later). */
  signed(): Promise<void> {
    return this.p.committer.late.signed();
  }

  /**
   * `entries` as they go out, once whenSigned() has settled: the ops this
   * node made while `signatures` was false, where it is on now, as signed
   * copies (SignedOut). Returns `entries` itself when none needs it.
   */
  async outgoing(entries: LogEntry[]): Promise<LogEntry[]> {
    await this.whenSigned(entries);
    return this.signedOut.of(entries);
  }

  /**
   * What a changes feed this node hosts awaits before it reads its next page
   * (readOut): the merges a bootstrap logged before their signature, and
   * the signed copies of own ops logged unsigned; undefined when nothing
   * waits.
   */
  whenSendable(after: number, limit: number): Promise<void> | undefined {
    return this.p.committer.late.whenLogSigned(after, limit) ?? this.signedOut.ready(after, limit);
  }

  /** The first log position after `after` of an op of `scopes` or the global scope (head + 1 when none): what a scoped feed may step to unread. */
  nextInScopes(after: number, scopes: readonly string[]): number {
    return this.p.log.nextInScopes(after, scopes);
  }

  /** read() as a changes feed sends it, once whenSendable() has settled: own ops logged unsigned as their signed copies. */
  readOut(after: number, limit?: number): LogEntry[] {
    return this.signedOut.read(after, limit);
  }

  /** Stamp, sequence and digest an own op (the sync layer's merge and advance ops). */
  makeOp(body: OwnOpBody, scope: string): Op {
    return makeOwnOp(this.p, body, scope);
  }

  /** Apply a peer's page through the one pipeline (checks, signatures, scope, hooks). */
  applyPage(input: readonly unknown[], o: PeerApplyOptions): Promise<PeerApplyResult> {
    return applyPeerPage(this.p, input, o);
  }

  /** Report a page's ops that did not unpack (OP_MALFORMED on storage.on('error')). */
  reportUnpacked(page: { malformed: number; reason?: string }, url: string): void {
    reportUnpackedOps(this.p, page, url);
  }

  /** Tell storage.on('schema') of a peer's schema drift. */
  reportDrift(event: Extract<StorageEvents['schema'][0], { kind: 'drift' }>): void {
    this.p.events.emit('schema', event);
  }

  /** The wall clock as injected. */
  now(): number {
    return this.p.clock.now();
  }

  /** Take a stamp seen into account (CLK-8). */
  observe(ts: number): void {
    this.p.clock.observe(ts);
  }

  /** Whether a scope function is set: without one every record is in '*'. */
  get scoped(): boolean {
    return this.p.scopes.scoped;
  }

  /** The scope a record is in ('*' by default). */
  scopeOf(id: string): string {
    return this.p.scopes.scopeOf(id);
  }

  /** The scope function over a record's data. @throws what the scope function throws. */
  scopeFor(id: string, data: Record<string, unknown>): string {
    return this.p.scopes.scopeFor(id, data);
  }

  /** The scope a scope function last placed the record in, if any. */
  lastScope(id: string): string | undefined {
    return this.p.scopes.map.get(id);
  }

  /** Whether a record is sealed for this node alone (GUAR-19). */
  isSealed(id: string): boolean {
    return this.p.sealed.has(id);
  }

  /** The reconciliation index of the records, built at the first call. */
  digests(): RecordDigests {
    return recordDigests(this);
  }
}

function newNonce(): string {
  return platform().base64url(platform().randomBytes(9));
}

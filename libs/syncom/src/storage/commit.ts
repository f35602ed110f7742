import { SyncomError } from '../errors';
import type { Entry } from '../crdt';
import type { Op, Vector } from '../op/types';
import type { OpLog } from '../log/op-log';
import { FLAG_GRANTED } from '../log/op-log';
import { FLAG_SEALED, FLAG_UNSIGNED_OWN } from '../op/pack';
import { raiseVector } from '../log/vector';
import { StreamKeys } from './stream-keys';
import type { RecordStore } from './records';
import { awaitSigning, LateSigns } from './late-signs';
import { submitGroup } from './submit-group';
import { DrainCount } from './drain-count';
import type { CommitHooks, Pending, SubmitGroup } from './commit-types';

export type { CommitHooks, Pending, SubmitGroup, Via } from './commit-types';

const MAX_BATCH = 5_000;

/**
 * The one commit pipeline for local and peer ops (group commit): ops queued
 * while an append is in flight go into the next batch, so concurrent writes
 * share one log file and one record file. Log before records (LOG-1); a
 * failed append refuses every queued op and rolls the pending state back.
 */
export class Committer {
  readonly committed = new Map<string, Entry>();
  /** Entries changed by queued ops, not yet in the log: what the next local op builds on. */
  private readonly overlay = new Map<string, Entry>();
  /** The log's vector plus the queued ops. */
  pvec: Vector;
  /** The sealed stream's seq with the queued sealed ops: no vector holds it (GUAR-19). */
  sealedSeq: number;
  /** What the committed records cover, and the last log position they include: a snapshot's consistent point. */
  cvec: Vector;
  chead: number;
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;
  /** Set while drain() waits on an empty queue: the next submit wakes it. */
  private wake: (() => void) | undefined;
  private readonly unrecorded = new Map<number, string[]>();
  /** Ids purged by batches committed and not scrubbed yet: the next persist scrubs them all. */
  private readonly toScrub = new Set<string>();
  /** Batches holding a purge, sealed only once it is scrubbed: one a crash cut short is in the tail the reopen scrubs. */
  private readonly purging = new Set<number>();
  /** Ops signed after their append; a batch holding one is sealed once they are signed. */
  readonly late: LateSigns;
  /** Batches whose records are written and whose late ops are still signing. */
  private readonly recordedLate = new Set<number>();
  /** The records writes and scrubs, one after the other. */
  private persisting: Promise<void> = Promise.resolve();
  /**
   * The seals, one after the other, beside the records writes: a seal waits for its batches' records, not for
   * the records of the batches after them (they touch other files), so neither holds the other's turns. A scrub waits for both.
   */
  private sealing: Promise<void> = Promise.resolve();
  /** Ops of the batches whose records wait (recordsWait); 0 once a persist is queued for them. */
  private unrecordedOps = 0;
  /** Set while a batch is appended: an op queued then waits for that append anyway. */
  private appending = false;
  private readonly keys = new StreamKeys();
  /** Set by refuse(): the storage is closing, no op is taken any more. */
  private refusing = false;
  private readonly counted = new DrainCount();
  /** The position of a failed append's file the discard could not remove: removed at close() unless an append took it since. */
  private undiscarded = 0;
  /** Records an open wrote from the log and could not write (writeLater): in the next records write. */
  private readonly unwritten = new Set<string>();

  constructor(private readonly log: OpLog, private readonly records: RecordStore, private readonly hooks: CommitHooks) {
    this.pvec = { ...log.vector };
    this.cvec = { ...log.vector };
    this.chead = log.head;
    this.sealedSeq = log.sealedSeq;
    this.late = new LateSigns(log, { sign: (op) => hooks.sign(op), done: (from) => this.signedLate(from), failed: (e) => hooks.failed(e) });
  }

  /** The entry as the next op sees it: queued ops included. */
  current(id: string): Entry | undefined {
    // Between pages of a bootstrap nothing is queued: one table lookup an op, not two.
    return (this.overlay.size === 0 ? undefined : this.overlay.get(id)) ?? this.committed.get(id);
  }

  /** Queue an op; resolves once it is logged (or persisted, with afterPersist). */
  submit(p: Omit<Pending, 'resolve' | 'reject'>): Promise<void> {
    return new Promise<void>((resolve, reject) => this.enqueue(p, resolve, reject));
  }

  /** Ops queued one by one, as submit() queues them, under one promise (submitGroup). */
  group(): SubmitGroup {
    return submitGroup((p, resolve, reject) => this.enqueue(p, resolve, reject));
  }

  private enqueue(p: Omit<Pending, 'resolve' | 'reject'>, resolve: () => void, reject: (e: Error) => void): void {
    // Past close() nothing may reach the log: the lock is released, and a reopened storage writes the same positions.
    if (this.refusing) return reject(new SyncomError('CLOSED', 'the storage is closed; ops are refused'));
    if (p.flags & FLAG_SEALED) this.sealedSeq = Math.max(this.sealedSeq, p.op.seq);
    else this.keys.advance(this.pvec, p.op);
    if (p.flags & FLAG_GRANTED && p.op.vector) raiseVector(this.pvec, p.op.vector);
    // A purge is final on every path: a merge that joins a purge marker (bootstrap, reconciliation) scrubs as a purge op does.
    const scrub = !!p.after?.purged && (p.op.type === 'purge' || !this.current(p.op.id)?.purged);
    if (p.after) this.overlay.set(p.op.id, p.after);
    // Signing starts now, off the main thread, and runs while the next ops are built; a late op's after its append.
    // A lone op (nothing queued or appending: an awaited write) is signed at once, its append waits on nothing else.
    const signing = p.late ? undefined : this.hooks.sign(p.op, this.queue.length === 0 && !this.appending);
    signing?.catch(() => undefined);
    // A literal, not a spread of p: the drain reads these objects several times, and spread copies read slowly.
    const flags = this.hooks.unsignedOwn?.(p.op) ? p.flags | FLAG_UNSIGNED_OWN : p.flags;
    this.queue.push({ op: p.op, flags, via: p.via, after: p.after, afterPersist: p.afterPersist, scrub, signing, late: p.late, resolve, reject });
    this.counted.queue();
    this.wake?.();
    this.running ??= this.drain();
  }

  /**
   * Resolves once every op queued before the call is logged, or refused by a
   * failed append: bounded by the batches ahead, unlike idle(), which new
   * ops keep waiting. A host's push answer waits on it for the duplicates
   * another page had queued (applyPeerPage).
   */
  drained(): Promise<void> {
    return this.counted.drained();
  }

  /**
   * Write the records of `ids` with the next records write (idle() and close() included): an open's rebuild
   * or held ops whose record file failed. Until it succeeds no batch is recorded, so none is sealed and
   * retention drops no segment holding their ops: kept in memory alone, they were lost to a later open once it had.
   */
  writeLater(ids: readonly string[]): void {
    for (const id of ids) this.unwritten.add(id);
    this.unrecordedOps += ids.length;
  }

  /** Take the unsealed tail replayed at open: its batches are recorded at the next persist. */
  adoptTail(froms: number[], tail: readonly { op: Op }[]): void {
    if (froms.length === 0) return;
    const ids = [...new Set(tail.map((e) => e.op.id))];
    froms.forEach((from, i) => this.unrecorded.set(from, i === 0 ? ids : []));
  }

  /** Resolves once nothing is queued or in flight and the records of the batches before are written. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
    // Only the records that wait: a batch whose records write failed waits for the next write, as it did.
    if (this.unrecordedOps === 0) return;
    this.unrecordedOps = 0;
    this.persisting = this.persisting.then(() => this.persist([]));
    await this.settled();
    while (this.running) await this.running;
  }

  /**
   * Whether the records of `batch` wait for a later batch's persist: nothing waits on them (no purge to scrub,
   * no afterPersist) and fewer than rollAfter batches and MAX_BATCH (or segmentOps) ops are unrecorded, so a seal
   * is never later than it was. The log is the commit point and a reopen replays the unsealed tail onto the records,
   * so they may lag it (docs/guarantees.md, "Record files follow the log"): written for every batch, each awaited
   * write paid a record file of its own. A batch is sealed only once its records are written; idle() and close()
   * write what waits.
   */
  private recordsWait(batch: Pending[]): boolean {
    this.unrecordedOps += batch.length;
    if (this.unrecorded.size < this.log.rollAfter && this.unrecordedOps < Math.min(MAX_BATCH, this.log.segmentOps) && !batch.some((p) => p.scrub || p.afterPersist)) return true;
    this.unrecordedOps = 0;
    return false;
  }

  /** Append batches one at a time; the records are written beside the appends (different files), in the order of the batches. */
  private async drain(): Promise<void> {
    await Promise.resolve();
    try {
      for (;;) {
        if (this.queue.length === 0) {
          await this.nextOpOr(this.settled());
          if (this.queue.length === 0) return;
        }
        const batch = this.queue.splice(0, MAX_BATCH);
        let from: number;
        try {
          await awaitSigning(batch, (op) => this.hooks.signs(op));
          this.appending = true;
          from = await this.log.append(batch);
        } catch (e) {
          this.appending = false;
          await this.settled();
          await this.fail(batch, e);
          continue;
        }
        this.appending = false;
        this.commit(batch, from);
        // The next append does not wait for these records: an awaited write pays its own append, not the
        // last write's record file (or a seal). Persists run one after the other, each writing every batch
        // not recorded yet, so a slow one is followed by a single larger one, not by a queue of them. A
        // batch nothing waits on is recorded with a later one (recordsWait).
        if (!this.recordsWait(batch)) this.persisting = this.persisting.then(() => this.persist(batch));
      }
    } finally {
      this.running = null;
    }
  }

  /**
   * Resolves at the next submit or once `persisting` settles, whichever is
   * first. The writers a commit resolved queue their next ops a few
   * microtasks after it: waiting for the records too would put the record
   * write on every batch's path, where it belongs beside the next append.
   */
  private async nextOpOr(persisting: Promise<void>): Promise<void> {
    try {
      await Promise.race([persisting, new Promise<void>((resolve) => (this.wake = resolve))]);
    } finally {
      this.wake = undefined;
    }
  }

  private commit(batch: Pending[], from: number): void {
    for (const p of batch) {
      // A snapshot's vector is cvec: a sealed op must not show in it (GUAR-19).
      if (!(p.flags & FLAG_SEALED)) this.keys.advance(this.cvec, p.op);
      if (p.flags & FLAG_GRANTED && p.op.vector) raiseVector(this.cvec, p.op.vector);
    }
    this.chead = from + batch.length - 1;
    // In batch order, so the last op of an id leaves its entry; the record write takes each id once.
    // With nothing queued after this batch, every entry of the overlay is one of its own: it is emptied at once.
    const last = this.queue.length === 0;
    const ids: string[] = [];
    for (const p of batch) {
      const e = p.after;
      if (!e) continue;
      const id = p.op.id;
      this.committed.set(id, e);
      if (!last && this.overlay.get(id) === e) this.overlay.delete(id);
      ids.push(id);
    }
    if (last) this.overlay.clear();
    this.unrecorded.set(from, ids);
    for (const p of batch) if (p.scrub) this.toScrub.add(p.op.id);
    if (batch.some((p) => p.scrub)) this.purging.add(from);
    this.hooks.committed(batch, from);
    for (const p of batch) if (!p.afterPersist) p.resolve();
    this.counted.end(batch.length);
  }

  /** The records writes queued so far, and the seals they started, settled. */
  private settled(): Promise<void> {
    return this.persisting.then(() => this.sealing);
  }

  /** Seal what may be sealed, after the seals before (`all`: every recorded batch, at close). */
  private seal(all: boolean): Promise<void> {
    this.sealing = this.sealing.then(() => this.log.maybeSeal(all)).catch((e: Error) => {
      this.hooks.failed(new SyncomError('IO_ERROR', `sealing the log failed: ${e?.message}`, { cause: e }));
    });
    return this.sealing;
  }

  /** Write the records of every batch not recorded yet; then seal what may be sealed (GUAR-8), beside the next records writes. */
  private async record(all: boolean): Promise<void> {
    // Only the batches committed so far: one appended meanwhile is recorded by its own persist.
    const froms = [...this.unrecorded.keys()];
    const later = [...this.unwritten];
    if (froms.length === 0 && !all && later.length === 0) return;
    const ids = new Set([...froms.flatMap((f) => this.unrecorded.get(f) ?? []), ...later]);
    try {
      const entries = [...ids].map((id) => this.committed.get(id)).filter((e): e is Entry => !!e);
      await this.records.write(entries, this.committed);
      for (const id of later) this.unwritten.delete(id);
      for (const from of froms) {
        // A batch with ops still to sign stays open: the flag and the unsigned ops never reach a sealed segment.
        if (this.late.holds(from)) this.recordedLate.add(from);
        else if (!this.purging.has(from)) this.log.markRecorded(from);
        this.unrecorded.delete(from);
      }
    } catch (e) {
      this.hooks.failed(new SyncomError('UNPERSISTED', `records not written (${(e as Error).message}); the ops stand, held in memory`, { cause: e }));
    }
    if (all) await this.seal(true);
    else void this.seal(false);
  }

  /**
   * Write the records of what is unrecorded, then scrub every purge committed
   * so far. A scrub that failed (an I/O error) is tried again at the next
   * persist (the next write, close()), and its batches stay unsealed until
   * one succeeds, so a reopen scrubs them too: sealed at once, they had left
   * the purged data on disk for good, the purge resolved.
   */
  private async persist(batch: Pending[]): Promise<void> {
    await this.record(false);
    let scrubbed = [...this.purging].filter((from) => !this.unrecorded.has(from) && !this.recordedLate.has(from));
    if (this.toScrub.size > 0) {
      // Every purge committed so far, this batch's and those committed since: a file holding several is
      // rewritten once, and purges that come faster than their scrubs share the next one.
      const purged = [...this.toScrub];
      this.toScrub.clear();
      await this.scrub(purged).catch((e: SyncomError) => {
        for (const id of purged) this.toScrub.add(id);
        scrubbed = [];
        this.hooks.failed(e);
      });
    }
    for (const from of scrubbed) this.log.markRecorded(from);
    if (scrubbed.some((from) => this.purging.delete(from))) void this.seal(false);
    for (const p of batch) if (p.afterPersist) p.resolve();
  }

  /**
   * Scrub purged ids again (a purge of a purged id finishes a torn scrub,
   * GUAR-22; an open, the tail's purges), in the records writes' turn and
   * after the seals started, as a commit's scrub runs: close() waits for it
   * before the lock goes. One that fails is tried again at the next persist,
   * and the batches `froms` stay unsealed until it succeeds (sealed, an open's
   * failed scrub had left the purged data on disk for good).
   * @throws SyncomError CLOSED once close() was called; IO_ERROR when the scrub fails (the cause attached).
   */
  rescrub(ids: readonly string[], froms: readonly number[] = []): Promise<void> {
    if (this.refusing) return Promise.reject(new SyncomError('CLOSED', 'the storage is closed; the purge is refused'));
    for (const from of froms) this.purging.add(from);
    const run = this.persisting.then(() => this.scrub(ids)).then(() => froms.forEach((from) => this.purging.delete(from)), (e: unknown) => {
      for (const id of ids) this.toScrub.add(id);
      throw e;
    });
    this.persisting = run.catch(() => undefined);
    return run;
  }

  /**
   * Scrub `ids` from the log and the record files, once the seals started so
   * far end (a scrub rewrites log files a seal reads and removes).
   * @throws SyncomError IO_ERROR when the scrub fails (the cause attached).
   */
  private async scrub(ids: readonly string[]): Promise<void> {
    await this.sealing;
    await this.hooks.scrub(ids, this.committed).catch((e: Error) => {
      throw new SyncomError('IO_ERROR', `purge scrub failed: ${e?.message}; purge again to finish it`, { cause: e });
    });
  }

  private async fail(batch: Pending[], cause: unknown): Promise<void> {
    const all = batch.concat(this.queue.splice(0));
    this.overlay.clear();
    this.pvec = { ...this.log.vector };
    this.sealedSeq = this.log.sealedSeq;
    // The ops are refused either way. A whole batch file the discard could not remove was replayed by the next open,
    // its writes there though the app was told they were not made: it is reported, and removed again at close().
    await this.discard(this.log.head + 1);
    const error = new SyncomError('IO_ERROR', `the log append failed (${(cause as Error)?.message}); the write was not made`, { cause });
    this.hooks.refused(all, this.committed);
    for (const p of all) p.reject(error);
    this.counted.end(all.length);
    // Once per failed append, whoever made the writes: a host's pushes fail inside its unit, where nothing else tells
    // the storage's owner (a hub's /health) that its log refuses writes.
    this.hooks.failed(error);
  }

  /** Remove a failed append's file, at `at`; one that cannot be removed is reported, and tried again at close(). */
  private async discard(at: number): Promise<void> {
    this.undiscarded = at;
    await this.log.discard().then(() => (this.undiscarded = 0), (e: Error) => this.hooks.failed(new SyncomError('IO_ERROR', `the failed append's batch was not discarded: ${e?.message}`, { cause: e })));
  }

  /**
   * The late ops of the batch at `from` are signed: its appended text (flagged,
   * unsigned) is dropped so a seal packs the signed ops, and a batch whose
   * records are written may be sealed now.
   */
  private signedLate(from: number): void {
    const b = this.log.batches.find((x) => x.from === from);
    if (b) delete b.text;
    if (!this.recordedLate.delete(from)) return;
    this.log.markRecorded(from);
    // In the records writes' order (after a scrub queued before it), without waiting for the seal.
    this.persisting = this.persisting.then(() => void this.seal(false));
  }

  /**
   * Refuse every op from now on, own or a peer's, with CLOSED; those queued
   * before are still committed by close().
   */
  refuse(): void {
    this.refusing = true;
  }

  /** Refuse further ops, wait for the queue and the late signatures, write what is unrecorded, seal (LIFE-24). */
  async close(): Promise<void> {
    this.refuse();
    await this.idle();
    // The signings under way end first; a batch whose signing failed is not tried again here, but signed at the next open.
    this.late.stop();
    await this.late.signed();
    await this.settled();
    // A scrub that failed is tried once more before the lock goes; failing again, the reopen finishes it.
    if (this.toScrub.size > 0) await this.persist([]);
    if (this.undiscarded === this.log.head + 1) await this.discard(this.undiscarded);
    await this.record(true);
  }
}


import type { Entry } from '../crdt';
import type { SyncomError } from '../errors';
import type { Op } from '../op/types';
import type { OpGroup } from './submit-group';

/** The peer an op came from; null for a local write. */
export interface Via {
  url: string;
  node: string;
}

/** An op waiting for its log append. */
export interface Pending {
  op: Op;
  flags: number;
  via: Via | null;
  /** The record's entry once this op applied (absent when the op is logged, not applied). */
  after?: Entry;
  /** Resolve only once the batch's records are written and its purges scrubbed. */
  afterPersist?: boolean;
  /** This op purges its record: scrub the id once the batch's records are written (set by submit). */
  scrub?: boolean;
  /** This op's signature being made off the main thread, started when the op was queued (shared by the ops of one chunk). */
  signing?: Promise<void>;
  /** Logged before its signature (a joined snapshot page's merge or advance op): flagged FLAG_TO_SIGN, signed later (LateSigns). */
  late?: boolean;
  resolve(): void;
  reject(e: Error): void;
}

/** Ops queued under one promise (Committer.group). */
export type SubmitGroup = OpGroup<Omit<Pending, 'resolve' | 'reject'>>;

/** What the committer tells the storage. */
export interface CommitHooks {
  /** A batch is in the log (the commit point): announce it. */
  committed(batch: readonly Pending[], from: number): void;
  /** A record write or a seal failed after the commit point. */
  failed(e: SyncomError): void;
  /** Ops refused after they were queued (a failed append): undo what their queueing marked (`committed`: the records as they stand). */
  refused(ops: readonly Pick<Pending, 'op' | 'flags'>[], committed: ReadonlyMap<string, Entry>): void;
  /** Scrub purged ids from the log and the record files, each file once (`committed`: the records as they stand). */
  scrub(ids: readonly string[], committed: Map<string, Entry>): Promise<void>;
  /**
   * Start signing an op of this node's (one without a sig); undefined when
   * nothing is to sign or it was signed at once (`lone`: nothing else is queued
   * or appending, so its append waits on its sig alone).
   */
  sign(op: Op, lone?: boolean): Promise<void> | undefined;
  /** Whether sign(op) would sign it (late ops are flagged by this before their append). */
  signs(op: Op): boolean;
  /** Whether an op this node made goes to the log unsigned because signatures are off (flagged FLAG_UNSIGNED_OWN). */
  unsignedOwn?(op: Op): boolean;
}

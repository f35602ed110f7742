import { SyncomError } from '../errors';
import { FLAG_TO_SIGN } from '../log/flags';
import type { LogEntry, OpLog } from '../log/op-log';
import { addDigest } from '../op/sign';
import type { Op } from '../op/types';
import { platform } from '../platform';
import { markMade } from '../op/made';
import type { Pending } from './commit-types';

/** What LateSigns is told and asks of the committer. */
export interface LateSignHooks {
  /** Start signing an own op; undefined when there is nothing to sign (signatures off). */
  sign(op: Op): Promise<void> | undefined;
  /** Every flagged op of the batch at `from` is signed now. */
  done(from: number): void;
  failed(e: SyncomError): void;
}

/** A batch with flagged entries not signed yet: positions from..to, signed once `signed` resolves. */
interface Signing {
  from: number;
  to: number;
  /** Resolves once every flagged op of the batch is signed, however many attempts that takes; never rejects. */
  signed: Promise<void>;
  resolve(): void;
  /** The attempt under way, if any. */
  attempt?: Promise<void>;
  /** The next attempt after a failed one, and how long it waits. */
  timer?: ReturnType<typeof setTimeout>;
  delay: number;
}

/** The flagged entries of a batch and their ops as taken (a purge may swap an entry's op meanwhile), index for index. */
interface Flagged {
  entries: LogEntry[];
  ops: Op[];
}

/** Ops digested per turn of the event loop: the background work leaves room for the joins it follows. */
const SLICE = 64;
/** The wait before a failed batch is signed again, doubled at each failure up to RETRY_MAX_MS (the next ask for its ops does not wait). */
const RETRY_MS = 250;
const RETRY_MAX_MS = 60_000;

/**
 * The ops logged before their digest and signature (FLAG_TO_SIGN: the merge
 * ops of a joined snapshot page): digested and signed in the background, the
 * flag cleared in memory once signed. What sends ops out awaits whenSigned() first, so none leaves
 * the node unsigned where signatures are on. Ed25519 is deterministic and
 * the signed header is fixed at the join, so signing later (or again, after
 * a crash) gives the op the sig it would have had. A batch whose signing
 * failed stays open and is signed again, after a wait or when its ops are
 * asked for.
 */
export class LateSigns {
  /** Background signing waits for this first (tests and benchmarks that look at the unsigned window). */
  private hold: Promise<unknown> = Promise.resolve();
  /**
   * Batches with flagged entries not signed yet, by first position. Kept
   * per batch, not per entry: a bootstrap's 100k merges, all waiting at once,
   * made two tables of 100k entries grow on the join's path.
   */
  private readonly batches = new Map<number, Signing>();
  /** The batch whereSigning() found last: a feed's page asks for runs of entries of one batch. */
  private last?: Signing;
  private reported = false;
  /** Set by stop() (close): no attempt starts any more; what is unsigned is signed at the next open. */
  private stopped = false;

  constructor(private readonly log: OpLog, private readonly hooks: LateSignHooks) {
    // Added before any feed or dialer listens: an append's flagged entries are known before anyone reads them.
    log.appended.add((from, to) => this.take(from, to));
  }

  /** Let background signing start only once `until` settles (for tests and benchmarks). */
  holdUntil(until: Promise<unknown>): void {
    this.hold = until.catch(() => undefined);
  }

  /**
   * Whether the batch at `from` still has ops to sign (it is not sealed
   * until they are), being signed or after a signing that failed: sealed
   * then, its unsigned ops were in a segment, which neither a retry nor the
   * next open signs, and they never left the node.
   */
  holds(from: number): boolean {
    return this.batches.has(from);
  }

  /** Sign the flagged ops of the open batches read at open (a crash between join and signing). */
  resume(self: string): void {
    for (const b of this.log.batches) {
      for (let pos = b.from; pos <= b.to; pos++) {
        const e = this.log.at(pos);
        // Flags come only from this node's own files; the origin check keeps a foreign op out of the signing step all the same.
        if (e && e.flags & FLAG_TO_SIGN && e.op.origin === self && e.op.sig === undefined) markMade(e.op);
      }
      this.take(b.from, b.to);
    }
  }

  /**
   * Resolves once every flagged entry among `entries` is signed; undefined
   * when none is flagged. Rejects when the signing under way fails (what
   * pushes them reports it and tries again later): a batch whose last
   * signing failed is tried again now.
   */
  whenSigned(entries: readonly LogEntry[]): Promise<void> | undefined {
    return this.waits(entries, (s) => s.attempt ?? this.attempt(s) ?? (this.stopped ? Promise.reject(new Error('the storage is closing')) : s.signed));
  }

  /**
   * whenSigned() of the log's entries after `after`, at most `limit`, for a
   * feed: it waits however many signings that takes and is never handed a
   * failure (a feed handed one ended, and its subscriber got nothing more of
   * this node); undefined while no op waits.
   */
  whenLogSigned(after: number, limit: number): Promise<void> | undefined {
    return this.batches.size === 0 ? undefined : this.waits(this.log.read(after, limit), (s) => {
      if (!s.attempt) this.attempt(s);
      return s.signed;
    });
  }

  private waits(entries: readonly LogEntry[], wait: (s: Signing) => Promise<void>): Promise<void> | undefined {
    let waits: Set<Promise<void>> | undefined;
    for (const e of entries) {
      if (!(e.flags & FLAG_TO_SIGN)) continue;
      const s = this.whereSigning(e.pos) ?? this.retake(e);
      (waits ??= new Set()).add(s ? wait(s) : Promise.reject(new Error('an op to sign is in no open batch')));
    }
    return waits && Promise.all(waits).then(() => undefined);
  }

  /** Resolves once no signing is under way: every op signed, or the last signing of its batch failed (tried again later). */
  async signed(): Promise<void> {
    for (;;) {
      const running = [...this.batches.values()].flatMap((b) => (b.attempt ? [b.attempt] : []));
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  /** Start no attempt from now on (close): what is still unsigned is signed at the next open. */
  stop(): void {
    this.stopped = true;
    for (const b of this.batches.values()) if (b.timer) clearTimeout(b.timer);
  }

  /** The batch of positions from..to, if it has flagged entries: signed from now on. */
  private take(from: number, to: number): void {
    if (this.batches.has(from)) return;
    const flagged = this.flaggedOf(from, to);
    if (flagged.ops.length === 0) return;
    let resolve!: () => void;
    const signed = new Promise<void>((r) => (resolve = r));
    const s: Signing = { from, to, signed, resolve, delay: RETRY_MS };
    this.batches.set(from, s);
    // A failure is handled where the attempt starts.
    void this.attempt(s, flagged);
  }

  /** The flagged entries of positions from..to. */
  private flaggedOf(from: number, to: number): Flagged {
    // Two lists rather than an object per op: this runs at each append, on a bootstrap's way to readable.
    const flagged: Flagged = { entries: [], ops: [] };
    for (let pos = from; pos <= to; pos++) {
      const entry = this.log.at(pos);
      if (entry && entry.flags & FLAG_TO_SIGN) {
        flagged.entries.push(entry);
        flagged.ops.push(entry.op);
      }
    }
    return flagged;
  }

  /**
   * Sign the flagged entries of `s` once (`flagged`, read again by a retry):
   * the attempt, which rejects if it fails (the next is then due after a
   * wait); undefined when none is flagged any more, or after stop().
   */
  private attempt(s: Signing, flagged = this.flaggedOf(s.from, s.to)): Promise<void> | undefined {
    if (flagged.ops.length === 0) {
      // None is flagged any more: nothing to wait for.
      this.settled(s);
      return undefined;
    }
    if (this.stopped) return undefined;
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    const run = this.signAll(flagged);
    s.attempt = run;
    run.then(
      () => this.settled(s),
      (e: Error) => {
        if (s.attempt === run) s.attempt = undefined;
        this.report(e);
        if (this.stopped) return;
        s.timer = setTimeout(() => void (s.attempt ?? this.attempt(s)), s.delay);
        (s.timer as { unref?: () => void }).unref?.();
        s.delay = Math.min(s.delay * 2, RETRY_MAX_MS);
      },
    );
    return run;
  }

  private settled(s: Signing): void {
    this.batches.delete(s.from);
    this.reported = false;
    s.resolve();
    this.hooks.done(s.from);
  }

  /** The unsigned batch that holds position `pos`, if any. */
  private whereSigning(pos: number): Signing | undefined {
    const l = this.last;
    if (l && l.from <= pos && pos <= l.to && this.batches.get(l.from) === l) return l;
    for (const b of this.batches.values()) if (b.from <= pos && pos <= b.to) return (this.last = b);
    return undefined;
  }

  /** A flagged entry of no batch being signed (none should be): its open batch taken again. */
  private retake(e: LogEntry): Signing | undefined {
    const b = this.log.batches.find((x) => x.from <= e.pos && e.pos <= x.to);
    if (b) this.take(b.from, b.to);
    return b && this.batches.get(b.from);
  }

  /** Digest (a fresh nonce: nothing outside holds the op yet) and sign, a slice per turn; then clear the flags. */
  private async signAll(flagged: Flagged): Promise<void> {
    await this.hold;
    const { entries, ops } = flagged;
    const chunks = new Set<Promise<void>>();
    for (let i = 0; i < ops.length; i += SLICE) {
      await new Promise<void>((resolve) => platform().macrotask(resolve));
      for (let k = i; k < Math.min(i + SLICE, ops.length); k++) {
        const op = ops[k];
        if (op.sig !== undefined) continue;
        if (op.digest === undefined) addDigest(op);
        const p = this.hooks.sign(op);
        if (p) chunks.add(p);
      }
    }
    await Promise.all(chunks);
    for (let k = 0; k < ops.length; k++) await this.settle(entries[k], ops[k]);
  }

  /**
   * Clear the flag of a signed entry. A purge may have scrubbed the entry
   * meanwhile (a copy without payload, same header and digest): the sig holds for it.
   */
  private async settle(entry: LogEntry, op: Op): Promise<void> {
    const now = entry.op;
    if (now !== op && now.sig === undefined) {
      if (now.digest === op.digest && op.sig !== undefined) now.sig = op.sig;
      else if (now.origin === op.origin) await this.hooks.sign(markMade(now));
    }
    entry.flags &= ~FLAG_TO_SIGN;
  }

  private report(e: Error): void {
    if (this.reported) return;
    this.reported = true;
    this.hooks.failed(new SyncomError('UNSIGNED', `joined ops not signed (${e.message}); kept unsent, signed again soon`, { cause: e }));
  }
}

/**
 * Wait for the sigs of a batch's ops before its append; late ops to sign
 * (`signs`) are logged flagged instead. Ops signed in one chunk share its
 * promise: each chunk is awaited once.
 */
export async function awaitSigning(batch: Pending[], signs: (op: Op) => boolean): Promise<void> {
  let signing: Promise<void> | undefined;
  for (const p of batch) {
    if (p.late) {
      if (signs(p.op)) p.flags |= FLAG_TO_SIGN;
    } else if (p.signing && p.signing !== signing) await (signing = p.signing);
  }
}

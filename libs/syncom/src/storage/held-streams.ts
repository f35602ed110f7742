import { FLAG_HELD } from '../op';
import { opStreamKey, type Op } from '../op/types';
import { claimedVersion, heldVersion } from './held-version';

/** A logged op as the hold reads it: the op and its log flags. */
type Flagged = { op: Op; flags: number };

/**
 * Whether an op keeps its stream's order while held: the ops of one stream
 * land in seq order, and a counter's slot relies on it (it takes an inc
 * only past the last stamp it holds). A merge joins state, in any order; a
 * purge and an advance are never held.
 */
function ordered(op: Op): boolean {
  return op.type !== 'merge' && op.type !== 'purge' && op.type !== 'advance';
}

/**
 * The held ops that wait still (GUAR-26), and the streams they hold back.
 * An op waits for its own schema version, or for the newest an earlier op
 * of its stream waits for: applied before it, a later op of the stream (one
 * of an origin that went back to an older schema) left the held inc behind
 * its counter slot's stamp, so the upgrade dropped it and two nodes with the
 * same ops and schema read two totals.
 */
export class HeldStreams {
  /** Per stream, the newest version an op of it waits for. */
  private readonly streams = new Map<string, number>();
  /** The ops that wait by their stream alone (stream key and seq), with the version they wait for. */
  private readonly behind = new Map<string, number>();

  /** Whether an op noted waited (if none did, a snapshot's point need not read the log for them, snapshot-held.ts). */
  private noted = false;

  /**
   * @param version this node's schema version (-1 without a schema: every held op waits).
   * @param maxAhead how far past it a claimed version is held for (claimedVersion).
   */
  constructor(private readonly version: number, private readonly maxAhead?: number) {}

  /** The holds of a log read in order (log.read(log.floor)). */
  static of(entries: readonly Flagged[], version: number, maxAhead?: number): HeldStreams {
    const held = new HeldStreams(version, maxAhead);
    for (const e of entries) if (e.flags & FLAG_HELD) held.note(e.op);
    return held;
  }

  /** Whether a peer's op coming now must wait: a newer version than this node's, or its stream waits. */
  holds(op: Op): boolean {
    return this.versionOf(op) > this.version || (ordered(op) && this.streams.has(opStreamKey(op)));
  }

  /** Take a held op in (in log order); answers whether it waits. */
  note(op: Op): boolean {
    const key = opStreamKey(op);
    const own = this.versionOf(op);
    const before = ordered(op) ? this.streams.get(key) : undefined;
    if (before === undefined && own <= this.version) return false;
    if (before !== undefined && before > own) this.behind.set(`${key}\n${op.seq}`, before);
    if (ordered(op)) this.streams.set(key, Math.max(own, before ?? own));
    this.noted = true;
    return true;
  }

  /** Whether an op noted since open waits (retention may have dropped it since). */
  get any(): boolean {
    return this.noted;
  }

  /** The version a logged entry waits for, or undefined when it waits no more (or was never held). */
  waitsFor(e: Flagged): number | undefined {
    if (!(e.flags & FLAG_HELD)) return undefined;
    const v = Math.max(this.versionOf(e.op), this.behind.get(`${opStreamKey(e.op)}\n${e.op.seq}`) ?? -1);
    return v > this.version ? v : undefined;
  }

  /** The version an op is held for here: its claim, taken only so far past this node's. */
  private versionOf(op: Op): number {
    return claimedVersion(heldVersion(op), this.version, this.maxAhead);
  }

  /** Whether a logged entry waits still: held, for a version newer than this node's or behind an op that waits. */
  waits(e: Flagged): boolean {
    return this.waitsFor(e) !== undefined;
  }
}

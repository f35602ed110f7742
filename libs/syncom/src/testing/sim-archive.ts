import type { LogEntry } from '../log/op-log';
import { FLAG_SEALED } from '../op/pack';
import { opStreamKey, type Op } from '../op/types';

/**
 * What identifies an op beyond its position in its stream: two different ops
 * with one seq differ here. Not the digest: a purge's scrub gives an unsigned
 * op one (SIG-10), so the same op is relayed with and without it.
 */
const identity = (op: Op) => `${op.type}|${op.id}|${op.ts}|${op.sig ?? ''}`;

/**
 * Every op any node logged during a run, once each: the union the oracle
 * replays and the history a node must take again as duplicates. Two
 * different ops under one (stream, seq) break GUAR-6 and are kept apart.
 */
export class OpArchive {
  private readonly ops = new Map<string, Op>();
  /** Sealed ops (GUAR-19), by origin and seq of the sealed stream: never replicated, so kept out of streams(). */
  private readonly sealed = new Map<string, Op>();
  /** "stream#seq: first vs second" for each seq that named two different ops. */
  readonly reused: string[] = [];

  /** Take entries a log just appended. */
  add(entries: readonly LogEntry[]): void {
    for (const { op, flags } of entries) {
      const isSealed = (flags & FLAG_SEALED) !== 0;
      const key = isSealed ? `sealed:${op.origin}#${op.seq}` : `${opStreamKey(op)}#${op.seq}`;
      const map = isSealed ? this.sealed : this.ops;
      const had = map.get(key);
      if (!had) map.set(key, op);
      else if (identity(had) !== identity(op)) this.reused.push(`${key}: ${identity(had)} vs ${identity(op)}`);
    }
  }

  /** How many ops. */
  get size(): number {
    return this.ops.size;
  }

  /** The op at a stream's seq. */
  at(stream: string, seq: number): Op | undefined {
    return this.ops.get(`${stream}#${seq}`);
  }

  /** The sealed op an origin logged at a seq of its sealed stream. */
  sealedAt(origin: string, seq: number): Op | undefined {
    return this.sealed.get(`sealed:${origin}#${seq}`);
  }

  /** Every op, stream by stream in seq order (streams in key order). */
  streams(): Op[][] {
    const by = new Map<string, Op[]>();
    for (const op of this.ops.values()) {
      const k = opStreamKey(op);
      const list = by.get(k);
      if (list) list.push(op);
      else by.set(k, [op]);
    }
    return [...by.keys()].sort().map((k) => (by.get(k) as Op[]).sort((a, b) => a.seq - b.seq));
  }
}

import type { LogEntry } from '../../log/op-log';
import { opStreamKey, type Vector } from '../../op/types';

const MAX_BACKOFF = 60_000;

/** A held stream: the seq of the op the host refused, and its position in this node's log. */
interface Hold {
  seq: number;
  pos: number;
}

/**
 * Streams a host stopped for a refusal that stands: an op refused as
 * unsigned, forged or out of scope (SCOPE-19) is refused again at every
 * push, and every later op of its stream is a gap there. They are held here,
 * by stream and the refused op's seq, as SizeStalls holds an op too big for
 * the host: a page from the host or a write of this node pushes none of
 * them. The refused op alone goes again at a sign of life, backed off (1 s,
 * doubling to a minute) while the host refuses it again (HOST-16, HOST-17);
 * once the host's vector passes it (it took it, or another peer delivered
 * it) the hold goes and a recovery pushes what follows. A new hello and
 * sync() push them all again. Before, every page from the host and every
 * write read the whole log and pushed every op the host lacked again: a
 * hostile host's empty page cost the dialer its whole log, and an honest
 * host's one refusal made W writes push about W²/2 ops
 * (test/hostile/refused-push-cost.spec.ts, docs/replication.md).
 */
export class RefusedStreams {
  private readonly at = new Map<string, Hold>();
  private backoff = 0;
  /** When the refused ops may go again (now(): an injected clock in tests). */
  private dueAt = 0;
  /** A retry is under way: its ops pass holds() until retried(). */
  private retrying = false;
  /** Holds let go since the last retry began: the host's vector moved past them. */
  private freed = 0;

  constructor(private readonly now: () => number) {}

  /** Whether a stream is held (peers() shows the peer behind: the host lacks its ops). */
  get any(): boolean {
    return this.at.size > 0;
  }

  /** Whether `e` waits behind an op of its stream the host refused and still lacks. */
  holds(e: LogEntry, hv: Vector): boolean {
    if (this.at.size === 0 || this.retrying) return false;
    const k = opStreamKey(e.op);
    const h = this.at.get(k);
    return h !== undefined && e.op.seq >= h.seq && (hv[k] ?? 0) < h.seq;
  }

  /**
   * A push answer refused some of `frame` for a reason that stands: hold each
   * stream the host still lacks an op of, at its first such op, when that op
   * is the next the host needs. Returns false when a stream's first such op
   * came after a hole (a gap there, which a recovery from the vector may
   * mend): that stream is not held.
   */
  hold(frame: readonly LogEntry[], hv: Vector): boolean {
    const first = new Map<string, LogEntry>();
    for (const e of frame) {
      const k = opStreamKey(e.op);
      const f = first.get(k);
      if ((hv[k] ?? 0) < e.op.seq && (!f || e.op.seq < f.op.seq)) first.set(k, e);
    }
    let all = true;
    for (const [k, e] of first) {
      if (e.op.seq !== (hv[k] ?? 0) + 1) { all = false; continue; }
      const was = this.at.get(k);
      if (!was || e.op.seq < was.seq) this.at.set(k, { seq: e.op.seq, pos: e.pos });
    }
    return all;
  }

  /** Keys of the host's vector moved: a hold it passed goes; true when one did (what follows it is to be pushed). */
  moved(keys: Iterable<string>, hv: Vector): boolean {
    if (this.at.size === 0) return false;
    const was = this.freed;
    for (const k of keys) {
      const h = this.at.get(k);
      if (h && (hv[k] ?? 0) >= h.seq) { this.at.delete(k); this.freed++; }
    }
    if (this.freed === was) return false;
    // The host takes what it refused: the streams still held are tried again at the next sign of life.
    this.backoff = 0;
    this.dueAt = 0;
    return true;
  }

  /** Whether the refused ops are due to go again at this sign of life. */
  get due(): boolean {
    return this.at.size > 0 && this.now() >= this.dueAt;
  }

  /**
   * A retry is queued at this sign of life: the next is due a second after, then two,
   * doubling to a minute, unless the host's vector passes a held op meanwhile (moved()).
   */
  queue(): void {
    this.backoff = Math.min(MAX_BACKOFF, this.backoff ? this.backoff * 2 : 1000);
    this.dueAt = this.now() + this.backoff;
  }

  /** The refused op of each held stream still in the log (`read` a position), to push again: holds() lets them pass until retried(). */
  retry(read: (pos: number) => LogEntry | undefined): LogEntry[] {
    this.retrying = true;
    this.freed = 0;
    const out: LogEntry[] = [];
    for (const [k, h] of this.at) {
      const e = read(h.pos);
      if (e && e.pos === h.pos && e.op.seq === h.seq && opStreamKey(e.op) === k) out.push(e);
    }
    return out;
  }

  /** The retry was answered (or failed); true when the host took a refused op (its stream's later ops are to be pushed). */
  retried(): boolean {
    this.retrying = false;
    return this.freed > 0;
  }

  /** A new hello, or sync(): every op the host lacks is pushed again, and a refusal that still stands holds its stream again. */
  clear(): void {
    this.at.clear();
  }
}

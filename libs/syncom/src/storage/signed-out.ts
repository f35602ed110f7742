import type { LogEntry } from '../log';
import type { OpLog } from '../log/op-log';
import { FLAG_SEALED, FLAG_UNSIGNED_OWN } from '../op/pack';
import { digestForSigning, sigHeader } from '../op/sign';
import type { Op } from '../op/types';
import { platform, type PlatformKey } from '../platform';

/**
 * The ops this node made while `signatures` was false (logged with
 * FLAG_UNSIGNED_OWN), signed on their way out once signatures are on: in a
 * push (Replica.outgoing) and in a changes feed this node hosts
 * (Replica.whenSendable, readOut). A peer that requires signatures (a hub's
 * default) refused them for good, and every later op of this node was a gap
 * there. One signed copy per op and process, whichever path asks first; the
 * log keeps them as written, and a process that opens the store again signs
 * them again (a fresh nonce: an op as valid, which a peer holding the first
 * takes as a duplicate).
 */
export class SignedOut {
  /** Copies being made or made, by the logged op. */
  private readonly signing = new WeakMap<Op, Promise<Op>>();
  /** Copies made, by the logged op: what a read substitutes. */
  private readonly copies = new WeakMap<Op, Op>();
  /** The last log position of such an op when first asked (0: none); none comes later in this process (signatures stay on). */
  private last?: number;

  constructor(
    private readonly log: OpLog,
    private readonly self: string,
    private readonly key: PlatformKey,
    private readonly on: boolean,
  ) {}

  /**
   * Whether `e` goes out signed here. The flag, not the origin: a peer may
   * have pushed an unsigned op in this node's name while signatures were
   * off, which this node never signs.
   */
  private signs(e: LogEntry): boolean {
    return (e.flags & FLAG_UNSIGNED_OWN) !== 0 && e.op.origin === this.self && e.op.sig === undefined && !(e.flags & FLAG_SEALED);
  }

  /** Whether an op after `after` may need it: signatures are on and the log held one past it at the first ask. */
  private any(after = 0): boolean {
    if (!this.on) return false;
    if (this.last === undefined) {
      this.last = 0;
      for (const e of this.log.read(this.log.floor)) if (this.signs(e)) this.last = e.pos;
    }
    return this.last > after;
  }

  /** The signed copy of `op`, made at the first ask. */
  private copy(op: Op): Promise<Op> {
    let made = this.signing.get(op);
    if (!made) {
      // A purge scrubbed its payload and kept the digest made then: signed as it stands, as a signed op's scrub keeps its sig.
      const copy = op.digest !== undefined ? { ...op } : digestForSigning(op);
      made = platform().ed25519.sign(this.key, sigHeader(copy)).then((sig) => {
        copy.sig = sig;
        this.copies.set(op, copy);
        return copy;
      }, (e: unknown) => {
        // Not kept: the next push or feed page that holds the op asks again (kept, every later ask failed with it).
        this.signing.delete(op);
        throw e;
      });
      this.signing.set(op, made);
    }
    return made;
  }

  /** `entries` with a signed copy in place of each op that needs one; `entries` itself, at once, when none does (every push but these). */
  of(entries: LogEntry[]): LogEntry[] | Promise<LogEntry[]> {
    if (!this.any() || !entries.some((e) => this.signs(e))) return entries;
    return Promise.all(entries.map(async (e) => (this.signs(e) ? { ...e, op: await this.copy(e.op) } : e)));
  }

  /** Resolves once every entry of the log after `after` (at most `limit`) that needs a copy has one; undefined when none waits. */
  ready(after: number, limit: number): Promise<void> | undefined {
    if (!this.any(after)) return undefined;
    const todo = this.log.read(after, limit).filter((e) => this.signs(e) && !this.copies.has(e.op));
    return todo.length === 0 ? undefined : Promise.all(todo.map((e) => this.copy(e.op))).then(() => undefined);
  }

  /** The log's entries after `after` (at most `limit`), each op that has a signed copy replaced by it. */
  read(after: number, limit?: number): LogEntry[] {
    const entries = this.log.read(after, limit);
    if (!this.any(after)) return entries;
    return entries.map((e) => {
      const copy = this.signs(e) ? this.copies.get(e.op) : undefined;
      return copy ? { ...e, op: copy } : e;
    });
  }
}

import type { LogEntry } from '../../log/op-log';
import { FLAG_GRANTED } from '../../log/flags';
import { FLAG_SEALED } from '../../op';
import { opStreamKey, type Vector } from '../../op/types';
import { vectorAhead, vectorLag } from '../protocol/lag';

/** What the running sums read: the log, the host's vector, the two nodes, the scopes the host is dialed for. */
export interface LagSides {
  /** This node's log: its vector, head, floor, entries, and the token that changes when the vector moves without an entry. */
  readonly log: { readonly vector: Readonly<Vector>; readonly head: number; readonly floor: number; readonly vectorNonce: string; read(after: number, limit?: number): LogEntry[] };
  /** The host's vector as this dialer knows it. */
  theirs(): Vector;
  readonly self: string;
  host(): string;
  /** The registered scopes (a new list object when addNode changes them) and their allowed set. */
  scopes(): readonly string[];
  allowed(): Set<string> | 'all';
}

const own = (v: object, k: string) => Object.prototype.hasOwnProperty.call(v, k);

/** Whether vectorLag sums key `k` when `node` is the far side: not its streams, nor joined from it, and a scope dialed for. */
function counted(k: string, node: string, allowed: Set<string> | 'all'): boolean {
  // The oracle is vectorLag itself, so the two never disagree on which keys count.
  return vectorLag({ [k]: 1 }, Object.create(null) as Vector, { host: node, allowed }) === 1;
}

/**
 * One sum of per-key terms, kept as they change: the non-zero terms by key,
 * their total (a BigInt: exact whatever the order of the changes), how many
 * are NaN (a vector key named like an Object.prototype member, which the
 * walk reads from the prototype: the walk's sum is NaN too) and how many are
 * no whole count otherwise (none is expected; the caller walks as before).
 */
class Sum {
  private readonly terms = new Map<string, number>();
  private total = 0n;
  private nan = 0;
  private odd = 0;

  set(k: string, term: number): void {
    const was = this.terms.get(k) ?? 0;
    if (was === term) return;
    this.add(was, -1n);
    this.add(term, 1n);
    if (term === 0) this.terms.delete(k);
    else this.terms.set(k, term);
  }

  private add(term: number, sign: bigint): void {
    if (Number.isSafeInteger(term)) this.total += BigInt(term) * sign;
    else if (Number.isNaN(term)) this.nan += Number(sign);
    else this.odd += Number(sign);
  }

  /** The sum, or undefined when a term is no whole count. */
  value(): number | undefined {
    if (this.nan > 0) return NaN;
    return this.odd > 0 ? undefined : Number(this.total);
  }

  clear(): void {
    this.terms.clear();
    this.total = 0n;
    this.nan = 0;
    this.odd = 0;
  }
}

/** What the sums were built on: another vector object, nonce, host or scope list means walking again. */
interface Basis {
  mine: object;
  theirs: object;
  nonce: string;
  host: string;
  scopes: object;
  /** The log position the sums have taken up to. */
  head: number;
}

/**
 * The dialer's two lags, kept as running sums of the per-key terms that
 * vectorAhead (`incoming`: ops the host holds that this node lacks) and
 * vectorLag (`lag`: this node's ops the host lacks) add up. A key is
 * summed again when a push answer or a page moves it in the host's vector,
 * or an entry appended to the log moves it in this node's (read from the
 * head the sums reached, at the next read). A hello, new scopes or a vector
 * moved without an entry make the next read walk both vectors once.
 * synced() and peers() read them after every page: walking both each time
 * cost the host vector's size per page (16.7 ms a page at 20,000 entries,
 * for a host that sent empty pages).
 */
export class HostLag {
  private readonly ahead = new Sum();
  private readonly behind = new Sum();
  private basis?: Basis;

  constructor(private readonly s: LagSides) {}

  /** Ops this node lacks of the host's, by its vector (peers()[i].incoming). */
  incoming(): number {
    this.fresh();
    return this.ahead.value() ?? vectorAhead(this.s.theirs(), this.s.log.vector, { self: this.s.self, allowed: this.s.allowed() });
  }

  /** This node's ops the host lacks, by its vector (synced()). */
  lag(): number {
    this.fresh();
    return this.behind.value() ?? vectorLag(this.s.log.vector, this.s.theirs(), { host: this.s.host(), allowed: this.s.allowed() });
  }

  /** Everything may have moved (a hello): the next read walks both vectors. */
  reset(): void {
    this.basis = undefined;
  }

  /** These keys of the host's vector may have moved (a push answer). */
  moved(keys: Iterable<string>): void {
    if (this.basis) for (const k of keys) this.update(k);
  }

  /** Bring the sums up to what they stand on: the entries appended since, or a walk when that cannot be told. */
  private fresh(): void {
    const { s } = this;
    const b = this.basis;
    const log = s.log;
    if (b && b.mine === log.vector && b.theirs === s.theirs() && b.nonce === log.vectorNonce && b.host === s.host() && b.scopes === s.scopes() && this.catchUp(b)) return;
    this.ahead.clear();
    this.behind.clear();
    this.basis = { mine: log.vector, theirs: s.theirs(), nonce: log.vectorNonce, host: s.host(), scopes: s.scopes(), head: log.head };
    for (const k of Object.keys(log.vector)) this.update(k);
    for (const k of Object.keys(s.theirs())) this.update(k);
  }

  /**
   * Sum again the keys the entries appended since the last read moved, as
   * OpLog.addEntry moves the vector (the op's stream, a granted advance's
   * keys); false when some of them can no longer be read (retention).
   */
  private catchUp(b: Basis): boolean {
    const log = this.s.log;
    if (log.head === b.head) return true;
    if (log.head < b.head || log.floor > b.head) return false;
    const entries = log.read(b.head);
    if (entries.length !== log.head - b.head) return false;
    b.head = log.head;
    for (const e of entries) {
      if (!(e.flags & FLAG_SEALED)) this.update(opStreamKey(e.op));
      if (e.flags & FLAG_GRANTED && e.op.vector) this.moved(Object.keys(e.op.vector));
    }
    return true;
  }

  /**
   * The two terms of key `k` as vectorLag and vectorAhead take them: the key
   * summed when it is an own key of the vector walked and counted for the far
   * side; the other vector read as they read it (its own keys only, so a key
   * named like an Object.prototype member reads 0).
   */
  private update(k: string): void {
    const { s } = this;
    const mine = s.log.vector;
    const theirs = s.theirs();
    const allowed = s.allowed();
    this.behind.set(k, own(mine, k) && counted(k, s.host(), allowed) ? Math.max(0, mine[k] - (own(theirs, k) ? theirs[k] : 0)) : 0);
    this.ahead.set(k, own(theirs, k) && counted(k, s.self, allowed) ? Math.max(0, theirs[k] - (own(mine, k) ? mine[k] : 0)) : 0);
  }
}

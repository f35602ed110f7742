import { SyncomError } from '../../errors';
import { platform } from '../../platform';
import { jsonBytes } from './frames';

/** Per-peer push limits of a host unit (Hosting). */
export interface Limits {
  opsPerPush?: number;
  bytesPerPush?: number;
  opsPerSecond?: number;
  /**
   * Purges per second per peer, beside opsPerSecond: a purge rewrites the
   * files holding its record (GUAR-20), hundreds of times what a write
   * costs, so a host taking purges from untrusted peers bounds them
   * (docs/security.md). Counted: purge ops, and merges that carry a purge
   * marker (they scrub as a purge does). A push with more purges than a
   * second's worth passes when the peer's bucket is full, and its next
   * purges wait until the bucket has refilled.
   */
  purgesPerSecond?: number;
}

/**
 * A token bucket refilled at `rate` per second and holding one second's
 * worth (HOST-12). A take that needs more than the bucket holds is refused
 * whole and consumes nothing; with `debt`, one larger than a second's
 * worth passes when the bucket is full, leaving it below zero.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(private readonly rate: number, private readonly now: () => number, private readonly debt = false) {
    this.tokens = rate;
    this.at = now();
  }

  /** Whether take(n) would pass now. */
  fits(n: number): boolean {
    this.refill();
    return n <= this.tokens || (this.debt && this.tokens >= this.rate);
  }

  take(n: number): boolean {
    if (!this.fits(n)) return false;
    this.tokens -= n;
    return true;
  }

  /**
   * Take `n` whatever the bucket holds, into debt if need be: work done
   * already (a type change judged, judgeBudget), paid for by waiting.
   */
  charge(n: number): void {
    this.refill();
    this.tokens -= n;
  }

  /**
   * Whether a charge ran the bucket into debt and it has not refilled since.
   * Empty is not in debt: a push that took the bucket's last token (one of a
   * second's worth of ops, which take lets through) had its type changes
   * refused at every retry, never judged.
   */
  inDebt(): boolean {
    this.refill();
    return this.tokens < 0;
  }

  /** Whether the bucket is back to a full second's worth (an idle peer's: safe to forget). */
  full(): boolean {
    this.refill();
    return this.tokens >= this.rate;
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.rate, this.tokens + (Math.max(0, t - this.at) / 1000) * this.rate);
    this.at = Math.max(this.at, t);
  }
}

/**
 * Who a peer is, for its limits: the identity an authorize named (at the
 * handshake, kept on the session, or at this hello), else a token that was
 * checked (the session's, or the hello's when an authorize judged it), else
 * the session object the transport gave, else the connection itself — never
 * the node id a hello claims, which anyone holding a token can claim (DESIGN:
 * second round). A token's connections share its key, so more sockets do not
 * buy more rate; an authorize that judges something other than the token (a
 * cookie, a handshake header) names the identity, or a peer could pick its
 * bucket by the token string it sends.
 */
export function limitKey(context: object, helloToken: string | undefined, authorized: boolean, identity?: string): string | object {
  const session = (context as { session?: unknown }).session;
  const held = session as { token?: unknown; identity?: unknown } | null | undefined;
  if (typeof held?.identity === 'string') return `identity:${held.identity}`;
  if (identity !== undefined) return `identity:${identity}`;
  if (typeof held?.token === 'string') return `token:${held.token}`;
  if (authorized && typeof helloToken === 'string') return `token:${helloToken}`;
  return session !== null && typeof session === 'object' ? session : context;
}

/**
 * Whether what an authorize threw says it could not judge (its token store down) rather than no: a
 * SyncomError AUTHORIZE_FAILED, or one of a 5xx status. Any other throw is a refusal (jwt.verify's on a
 * bad token), which stands: a dialer told 503 greets again, backed off, for as long as it is told so.
 */
export function authorizeFailed(e: unknown): boolean {
  if (!(e instanceof SyncomError)) return false;
  return e.code === 'AUTHORIZE_FAILED' || (typeof e.status === 'number' && e.status >= 500);
}

/** What an authorize answers: `true` admits, a non-empty string admits as that identity, anything else refuses. */
export type Authorized = boolean | string;

/**
 * What an authorize answered, read fail-closed: `true` or a non-empty
 * string (the peer's identity, {@link limitKey}) admit; `false` and any
 * other value (`undefined` from a branch without a return, `null`, `0`,
 * `''`, an object) refuse. An authorize written in JavaScript that forgot
 * its return refuses every peer rather than admitting every one.
 */
export function authorizeVerdict(answer: unknown): { ok: boolean; identity?: string } {
  if (answer === true) return { ok: true };
  if (typeof answer === 'string' && answer !== '') return { ok: true, identity: answer };
  return { ok: false };
}

/** How long authorize may take at a hello by default (UnitOptions.authorizeTimeout). */
export const DEFAULT_AUTHORIZE_MS = 10_000;

/**
 * A hello judged by a unit's authorize, read fail-closed (authorizeVerdict); a throw refuses, as
 * jwt.verify's on a bad token. One that says it could not judge (authorizeFailed: its token store
 * down), or that has not answered within `timeoutMs`, is 503, which a dialer greets again after,
 * backed off, where a 401 stands.
 * @throws SyncomError AUTHORIZE_FAILED 503.
 */
export async function judgeHello<H>(authorize: ((context: object, hello: H) => Authorized | Promise<Authorized>) | undefined, context: object, hello: H, timeoutMs = DEFAULT_AUTHORIZE_MS): Promise<{ ok: boolean; identity?: string }> {
  if (!authorize) return { ok: true };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late: SyncomError | undefined;
  try {
    const answer = authorize(context, hello);
    // An answer in hand (a sync authorize) sets no timer.
    const verdict = typeof (answer as { then?: unknown } | null)?.then === 'function' ? await Promise.race([answer, new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject((late = new SyncomError('AUTHORIZE_FAILED', `authorize did not answer this hello within ${timeoutMs} ms: greet again later`, { status: 503 }))), timeoutMs);
      (timer as { unref?: () => void }).unref?.();
    })]) : answer;
    return authorizeVerdict(verdict);
  } catch (e) {
    if (e === late) throw e;
    if (authorizeFailed(e)) throw new SyncomError('AUTHORIZE_FAILED', 'authorize could not judge this hello: greet again later', { status: 503, cause: e });
    return { ok: false };
  } finally {
    clearTimeout(timer);
  }
}

/** Past this length a key is kept by its digest: an authorize that admits any token would have the map hold each token whole. */
const MAX_KEY_CHARS = 128;

/**
 * The opsPerSecond buckets of a host unit, one per peer identity (HOST-12,
 * limitKey): a fresh hello or a new connection of the same identity does not
 * refill it. A token's bucket lives in a map of at most `max` keys (a long
 * one by its digest): at `max` its idle (full) buckets are forgotten, and
 * when none is idle the least recently used (peers that spend their rate, or
 * run into debt, faster than new ones come would grow it for good; a live
 * session keeps its bucket). A connection's or a session object's goes with
 * it (a WeakMap).
 */
export class PeerBuckets {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly byObject = new WeakMap<object, TokenBucket>();

  constructor(private readonly rate: number | undefined, private readonly now: () => number, private readonly max = 1024, private readonly debt = false) {}

  /** The bucket of `key` (limitKey, or a plain string), or undefined when there is no opsPerSecond limit. */
  for(key: string | object): TokenBucket | undefined {
    if (!this.rate) return undefined;
    if (typeof key === 'object') {
      let o = this.byObject.get(key);
      if (!o) this.byObject.set(key, (o = new TokenBucket(this.rate, this.now, this.debt)));
      return o;
    }
    // A digest cannot read as a short key: those start with limitKey's prefix, never a NUL.
    const k = key.length > MAX_KEY_CHARS ? `\0${platform().sha256(key)}` : key;
    let b = this.buckets.get(k);
    // Kept in order of use, the least recent first: what prune lets go of first.
    if (b) this.buckets.delete(k);
    else {
      if (this.buckets.size >= this.max) this.prune();
      b = new TokenBucket(this.rate, this.now, this.debt);
    }
    this.buckets.set(k, b);
    return b;
  }

  private prune(): void {
    for (const [k, b] of this.buckets) if (b.full()) this.buckets.delete(k);
    // Down to 7/8 of max, so that the next scan is max/8 new keys away.
    for (const k of this.buckets.keys()) {
      if (this.buckets.size < this.max - (this.max >> 3)) break;
      this.buckets.delete(k);
    }
  }
}

const LIMIT_KEYS: readonly (keyof Limits)[] = ['opsPerPush', 'bytesPerPush', 'opsPerSecond', 'purgesPerSecond'];

/**
 * A unit's limits as given, each checked: the four keys; a per-push bound a
 * whole number above 0 or Infinity (none), a rate a finite number above 0,
 * or 0 or null for none (the hub's convention, which PeerBuckets reads so).
 * A misspelt key or a value read from an unset variable (NaN) had been
 * taken as it came, and with it no limit at all; a negative one refused
 * every push for good; a string was coerced.
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option (`limits.<key>`).
 */
export function checkedLimits(limits: unknown): Limits | undefined {
  if (limits === undefined) return undefined;
  const refuse = (option: string, message: string): never => {
    throw new SyncomError('INVALID_ARGUMENT', message, { option });
  };
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) return refuse('limits', 'limits must be an object ({ opsPerPush?, bytesPerPush?, opsPerSecond?, purgesPerSecond? })');
  for (const [key, value] of Object.entries(limits)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(key)) refuse(`limits.${key}`, `unknown option limits.${key}; limits takes ${LIMIT_KEYS.join(', ')}`);
    if (value === undefined) continue;
    const rate = key === 'opsPerSecond' || key === 'purgesPerSecond';
    const ok = rate
      ? value === null || value === 0 || (typeof value === 'number' && Number.isFinite(value) && value > 0)
      : value === Infinity || (Number.isSafeInteger(value) && (value as number) > 0);
    const what = rate ? 'a finite number above 0, or 0 or null for none' : 'a whole number above 0, or Infinity for none';
    if (!ok) refuse(`limits.${key}`, `limits.${key} must be ${what}, not ${typeof value === 'number' ? String(value) : typeof value}`);
  }
  return limits as Limits;
}

/** The purges of a packed push page: purge ops, and merges carrying a purge marker (they scrub as a purge does). */
export function purgesIn(ops: readonly unknown[]): number {
  let n = 0;
  for (const o of ops) {
    if (!Array.isArray(o)) continue;
    // A merge's purge marker is a stamp ([ts, origin]): any value counts, so a marker the entry check refuses costs a token too.
    const marker = o[3] === 'merge' && typeof o[9] === 'object' && o[9] !== null ? (o[9] as { purged?: unknown }).purged : undefined;
    if (o[3] === 'purge' || (marker !== undefined && marker !== null && marker !== false)) n++;
  }
  return n;
}

/**
 * The limit refusal for a push page, or undefined when it passes (HOST-10,
 * HOST-11, HOST-12; purgesPerSecond, Limits). Both buckets are checked
 * before either is taken from: a refused page consumes nothing.
 */
export function checkLimits(limits: Limits | undefined, ops: unknown[], bucket: TokenBucket | undefined, purgeBucket?: TokenBucket): SyncomError | undefined {
  if (!limits) return undefined;
  if (limits.opsPerPush !== undefined && ops.length > limits.opsPerPush) {
    return new SyncomError('OPS_PER_PUSH', `a push of ${ops.length} ops is over opsPerPush ${limits.opsPerPush}`, { status: 413 });
  }
  if (limits.bytesPerPush !== undefined) {
    const bytes = jsonBytes(ops);
    if (bytes > limits.bytesPerPush) return new SyncomError('BYTES_PER_PUSH', `a push of ${bytes} bytes is over bytesPerPush ${limits.bytesPerPush}`, { status: 413 });
  }
  if (bucket && !bucket.fits(ops.length)) {
    return new SyncomError('OPS_PER_SECOND', `over opsPerSecond ${limits.opsPerSecond}`, { status: 429 });
  }
  const purges = purgeBucket ? purgesIn(ops) : 0;
  if (purgeBucket && purges > 0 && !purgeBucket.fits(purges)) {
    return new SyncomError('PURGES_PER_SECOND', `over purgesPerSecond ${limits.purgesPerSecond}`, { status: 429 });
  }
  bucket?.take(ops.length);
  if (purges > 0) purgeBucket?.take(purges);
  return undefined;
}

/**
 * The values of a type change's judgement charged as one op: what a host
 * spends on one op of a peer's (verifying its signature, applying and
 * logging it, about 80 to 100 us here) validates about 25 values of a record
 * (a set of 100,000 checked elements took 0.4 s).
 */
export const VALUES_PER_OP = 32;

/**
 * What judging type changes anew may spend of a peer's opsPerSecond bucket
 * (PeerApplyOptions.budget): each judgement is charged its values, VALUES_PER_OP
 * to an op, into debt; one starts only while the bucket is not in debt, so
 * what a peer's type changes cost the host in a second is bounded by its
 * rate, plus one record's judgement.
 */
export function judgeBudget(bucket: TokenBucket, rate: number): { open(): void; charge(values: number): void } {
  return {
    open: () => {
      if (bucket.inDebt()) throw new SyncomError('OPS_PER_SECOND', `over opsPerSecond ${rate}: this peer's type changes of large records were charged to its rate; the rest of the push comes again later`, { status: 429 });
    },
    charge: (values) => bucket.charge(Math.ceil(values / VALUES_PER_OP)),
  };
}

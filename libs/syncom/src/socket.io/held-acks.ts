import { safely } from '../link/link-wire';
import { answerOk, type PageAcksOffer, type SyncomAnswer } from './socket-io-protocol';

type Ack = (answer: SyncomAnswer) => void;

/** The longest a feed holds an ack back (ms), and the part of the host's ackTimeout it may hold it. */
const MAX_HOLD_MS = 1000;
const HOLD_PART = 10;

/** The clock held acks read and the timer they arm (tests inject their own). */
export interface AckClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const systemClock: AckClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
};

/** How long an ack may be held on the host's offer: a tenth of its ackTimeout, at most a second (ms). */
export function holdLimit(offer: PageAcksOffer): number {
  return Math.min(MAX_HOLD_MS, offer.ackTimeout / HOLD_PART);
}

/** The host's offer of cumulative page acks, from a hello answer; undefined for none or one that makes no sense. */
export function pageAcksOf(answer: unknown): PageAcksOffer | undefined {
  const offer = (answer as { pageAcks?: Partial<PageAcksOffer> } | undefined)?.pageAcks;
  if (typeof offer !== 'object' || offer === null) return undefined;
  const { window, ackTimeout } = offer;
  if (!Number.isSafeInteger(window) || (window as number) < 1 || typeof ackTimeout !== 'number' || !(ackTimeout > 0)) return undefined;
  return { window: window as number, ackTimeout };
}

/**
 * The page acks one feed owes its host. Without the host's offer each page
 * is acked once taken. With it, an ack answers every earlier page of the
 * feed, so only the latest page taken is acked: once half the host's window
 * is taken since the last ack (it can send on meanwhile); once a tenth of
 * its ackTimeout (at most a second) passed since the last ack or the first
 * page after it came (the host times its oldest page out from its last ack,
 * so a page taken within the timeout less that is never timed out); and
 * otherwise as soon as the feed has nothing more to take, unless the host
 * said of the latest page that it sends the next one without waiting for
 * this ack (`more`). Such an ack waits for the next page, or for a timer at
 * that tenth, so a host that says `more` and sends nothing holds the feed no
 * longer. An ack owed for a page without `more` is never held past the
 * pages already come: at the head of its log the host waits for it before
 * it sends what came meanwhile.
 */
export class HeldAcks {
  /** Pages that came and are not acked yet (taken or not). */
  private unacked = 0;
  /** Pages taken since the last ack, and the latest one's ack. */
  private held = 0;
  private latest: Ack | undefined;
  /** Whether a page taken since the last ack came without `more`. */
  private awaited = false;
  /** Since when the host's clock runs for the oldest page not acked (ms). */
  private since = 0;
  private timer: unknown;
  private readonly expire = () => {
    this.timer = undefined;
    if (this.held > 0) this.flush();
  };

  constructor(private readonly clock: AckClock = systemClock) {}

  /** A page came. */
  arrived(): void {
    if (this.unacked++ === 0) this.since = this.clock.now();
  }

  /**
   * A page that came was taken (or dropped); `ack` is its callback, `offer`
   * the host's on its connection, `more` what the host said of the page.
   */
  taken(ack: Ack, offer: PageAcksOffer | undefined, more = false): void {
    this.held++;
    this.latest = ack;
    if (!more) this.awaited = true;
    if (!offer) return this.flush();
    const limit = holdLimit(offer);
    const waiting = this.unacked > this.held;
    if ((!waiting && (!more || this.awaited)) || this.held >= Math.max(1, offer.window >> 1)) return this.flush();
    const left = this.since + limit - this.clock.now();
    if (!(left > 0)) return this.flush();
    // Nothing more to take: only the host's `more` holds the ack, for as long as the clock allows.
    if (!waiting && this.timer === undefined) this.timer = this.clock.setTimeout(this.expire, left);
  }

  private flush(): void {
    const ack = this.latest;
    this.unacked -= this.held;
    this.held = 0;
    this.latest = undefined;
    this.awaited = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unacked > 0) this.since = this.clock.now();
    if (ack) safely(() => ack(answerOk(null)));
  }
}

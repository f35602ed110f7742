import { safely } from '../link/link-wire';
import { answerOk, type PageAcksOffer, type SyncomAnswer } from './socket-io-protocol';

type Ack = (answer: SyncomAnswer) => void;

/** The longest a feed holds an ack back (ms), and the part of the host's ackTimeout it may hold it. */
const MAX_HOLD_MS = 1000;
const HOLD_PART = 10;

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
 * feed, so only the latest page taken is acked, when the feed has nothing
 * more to take (the host's window never starves), once half the host's
 * window is taken since the last ack (it can send on meanwhile), or once
 * a tenth of its ackTimeout (at most a second) passed since the last ack or
 * the first page after it came: the host times its oldest page out from its
 * last ack, so a page taken within the timeout less that is never timed out.
 */
export class HeldAcks {
  /** Pages that came and are not acked yet (taken or not). */
  private unacked = 0;
  /** Pages taken since the last ack, and the latest one's ack. */
  private held = 0;
  private latest: Ack | undefined;
  /** Since when the host's clock runs for the oldest page not acked (ms). */
  private since = 0;

  /** A page came. */
  arrived(): void {
    if (this.unacked++ === 0) this.since = Date.now();
  }

  /** A page that came was taken (or dropped); `ack` is its callback, `offer` the host's on its connection. */
  taken(ack: Ack, offer: PageAcksOffer | undefined): void {
    this.held++;
    this.latest = ack;
    if (offer && this.unacked > this.held && this.held < Math.max(1, offer.window >> 1)
      && Date.now() - this.since < Math.min(MAX_HOLD_MS, offer.ackTimeout / HOLD_PART)) return;
    this.flush();
  }

  private flush(): void {
    const ack = this.latest;
    this.unacked -= this.held;
    this.held = 0;
    this.latest = undefined;
    if (this.unacked > 0) this.since = Date.now();
    if (ack) safely(() => ack(answerOk(null)));
  }
}

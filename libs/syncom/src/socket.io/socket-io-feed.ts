import type { SubscribeOptions } from '../link/contract';
import { SyncomError } from '../errors';
import { DEFAULT_MAX_IN_FLIGHT_FRAMES, MAX_IN_FLIGHT_FRAMES } from '../sync/protocol/frames';
import { FeedCursor, type FeedHome } from '../link/feed-cursor';
import { safely } from '../link/link-wire';
import { HeldAcks } from './held-acks';
import { answerOk, SYNCOM_EVENTS, type PageAcksOffer, type SyncomAnswer } from './socket-io-protocol';

/** What a feed needs of its link. */
export interface FeedPort extends FeedHome {
  /** Whether the link has a live connection. */
  connected(): boolean;
  /** Sends an acknowledged message; resolves with the answer's value, rejects with a SyncomError. */
  send(event: string, payload: unknown): Promise<unknown>;
  /** Routes the pages and signals of host subscription `sub` to `feed` (undefined: to no one). */
  bind(sub: string, feed: SocketIoFeed | undefined): void;
  /** The live connection's host offer of cumulative page acks (its hello answer), if it made one. */
  pageAcks(): PageAcksOffer | undefined;
  /** The host broke the protocol on the live connection: drop it and dial again, backed off. */
  abandon(error: SyncomError): void;
}

/** The window a host that offers none is held to (the protocol's maxInFlightFrames), and the most a host's offer may claim (what a host may be set to). */
const DEFAULT_WINDOW = DEFAULT_MAX_IN_FLIGHT_FRAMES;
const MAX_WINDOW = MAX_IN_FLIGHT_FRAMES;
/** Pages past the window taken before the host counts as broken, in case it counts its window a little differently. */
const WINDOW_SLACK = 4;

/** How many pages of one opening may wait for the subscriber before the host counts as ignoring its window. */
export function pageBound(offer: PageAcksOffer | undefined): number {
  return Math.min(offer?.window ?? DEFAULT_WINDOW, MAX_WINDOW) + WINDOW_SLACK;
}

/**
 * One subscription over a socket.io link. Each opening at the host gets its
 * own sub id (`<feed>.<generation>`), so pages of an older opening are told
 * apart and ignored. Pages reach the subscriber one at a time; a page's ack
 * goes back once the subscriber's promise settled (backpressure), for the
 * latest page taken only where the host acks cumulatively (HeldAcks). The cursor,
 * the resume after a reconnect and the wait for a greeting are FeedCursor's.
 */
export class SocketIoFeed extends FeedCursor<unknown> {
  private sub: string | undefined;
  private readonly acks = new HeldAcks();
  /** Pages of the current opening that came and are not through the subscriber yet. */
  private waiting = { pages: 0 };

  constructor(private readonly port: FeedPort, private readonly id: number, args: unknown, options: SubscribeOptions) {
    super(port, SYNCOM_EVENTS.changes, args, options);
  }

  /** Opens the feed at the host, after the last event id taken. */
  open(resumed: boolean): void {
    if (this.ended || !this.port.connected() || this.waitForTaken(resumed)) return;
    this.detach();
    const gen = this.begin(resumed);
    const sub = `${this.id}.${gen}`;
    this.sub = sub;
    this.waiting = { pages: 0 };
    this.port.bind(sub, this);
    this.adopt(gen, { unsubscribe: () => this.release(sub) });
    const envelope = { sub, args: this.args, lastEventId: this.lastEventId };
    this.port.send(SYNCOM_EVENTS.changes, envelope).catch((e: SyncomError) => this.refused(gen, e, true));
  }

  /**
   * A page of `sub`; `ack` answers the host once the subscriber took it (or
   * failed to). `more`: the host said it sends the next page without waiting
   * for this ack, which may then be held a little (HeldAcks).
   */
  page(sub: string, value: unknown, eventId: string | undefined, ack: (answer: SyncomAnswer) => void, more = false): void {
    const gen = this.gen;
    if (sub !== this.sub) return ack(answerOk(null));
    // The host sends no more than its window unacked; a page past it would wait here, unbounded, behind the subscriber.
    const waiting = this.waiting;
    const bound = pageBound(this.port.pageAcks());
    if (++waiting.pages > bound) return this.overrun(bound);
    this.resumed = false;
    this.acks.arrived();
    const step = this.queue.then(() => this.hand(gen, value, eventId));
    this.queue = step;
    void step.then(() => {
      waiting.pages--;
      this.acks.taken(ack, this.port.pageAcks(), more);
    });
  }

  /** The host refused or failed the feed after it opened. */
  hostError(sub: string, error: SyncomError): void {
    if (sub === this.sub) this.refused(this.gen, error);
  }

  /** The host ended the feed. */
  hostEnd(sub: string): void {
    if (sub !== this.sub) return;
    this.signal(this.gen, () => {
      this.detach();
      this.hostEnded();
    });
  }

  /** `answer`: the host refused the opening itself (or never answered it), so it has no pages or end to send on it. */
  private refused(gen: number, e: SyncomError, answer = false): void {
    // A connection lost meanwhile is no refusal: the feed reopens on reconnect.
    if (gen !== this.gen || e.code === 'LINK_DOWN' || this.parkOn428(e)) return;
    // The host gave up waiting for a page's ack: resume once the pages taken so far are done.
    if (e.code === 'ACK_TIMEOUT') return this.signal(gen, () => this.open(true));
    // A subscriber told the opening failed must get no page of it: the host may still send some (it answered late, or lied).
    if (answer) this.forsake(e);
    this.signal(gen, () => this.options.onError?.(e));
  }

  /**
   * The host sent more pages than its window while the subscriber was busy:
   * the feed ends, its subscriber hears BAD_ANSWER at once (the pages before
   * are dropped), and the link drops the connection.
   */
  private overrun(bound: number): void {
    const error = new SyncomError('BAD_ANSWER', `the host sent over ${bound} changes pages without waiting for their acks (its window): dropping the connection`);
    this.unsubscribe();
    safely(() => this.options.onError?.(error));
    this.port.abandon(error);
  }

  /** The opening `sub` is over: its pages go nowhere; ended for good, the host hears it too. */
  private release(sub: string): void {
    this.port.bind(sub, undefined);
    if (this.sub === sub) this.sub = undefined;
    if (this.ended && this.port.connected()) this.port.send(SYNCOM_EVENTS.unsubscribe, { sub }).catch(() => undefined);
  }

  /** Unbinds an opening that failed at its answer; one that timed out may be open at the host, which is told to drop it. */
  private forsake(e: SyncomError): void {
    const sub = this.sub;
    this.detach();
    if (e.code === 'LINK_TIMEOUT' && sub !== undefined && this.port.connected()) {
      this.port.send(SYNCOM_EVENTS.unsubscribe, { sub }).catch(() => undefined);
    }
  }

  /** Forgets the opening without telling the host (it ended it, or never had it). */
  private detach(): void {
    if (this.sub !== undefined) this.port.bind(this.sub, undefined);
    this.sub = undefined;
    this.host = undefined;
  }

  /** Hands one page over, unless the feed moved on meanwhile. */
  private async hand(gen: number, value: unknown, eventId: string | undefined): Promise<void> {
    if (gen !== this.gen) return;
    await this.deliver(value, eventId);
  }
}

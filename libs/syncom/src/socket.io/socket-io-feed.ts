import type { SubscribeOptions } from '../link/contract';
import type { SyncomError } from '../errors';
import { FeedCursor, type FeedHome } from '../link/feed-cursor';
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

  constructor(private readonly port: FeedPort, private readonly id: number, args: unknown, options: SubscribeOptions) {
    super(port, SYNCOM_EVENTS.changes, args, options);
  }

  /** Opens the feed at the host, after the last event id taken. */
  open(resumed: boolean): void {
    if (this.ended || !this.port.connected()) return;
    this.detach();
    const gen = this.begin(resumed);
    const sub = `${this.id}.${gen}`;
    this.sub = sub;
    this.port.bind(sub, this);
    this.adopt(gen, { unsubscribe: () => this.release(sub) });
    const envelope = { sub, args: this.args, lastEventId: this.lastEventId };
    this.port.send(SYNCOM_EVENTS.changes, envelope).catch((e: SyncomError) => this.refused(gen, e));
  }

  /**
   * A page of `sub`; `ack` answers the host once the subscriber took it (or
   * failed to). `more`: the host said it sends the next page without waiting
   * for this ack, which may then be held a little (HeldAcks).
   */
  page(sub: string, value: unknown, eventId: string | undefined, ack: (answer: SyncomAnswer) => void, more = false): void {
    const gen = this.gen;
    if (sub !== this.sub) return ack(answerOk(null));
    this.resumed = false;
    this.acks.arrived();
    const step = this.queue.then(() => this.hand(gen, value, eventId));
    this.queue = step;
    void step.then(() => this.acks.taken(ack, this.port.pageAcks(), more));
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

  private refused(gen: number, e: SyncomError): void {
    // A connection lost meanwhile is no refusal: the feed reopens on reconnect.
    if (gen !== this.gen || e.code === 'LINK_DOWN' || this.parkOn428(e)) return;
    // The host gave up waiting for a page's ack: resume once the pages taken so far are done.
    if (e.code === 'ACK_TIMEOUT') return this.signal(gen, () => this.open(true));
    this.signal(gen, () => this.options.onError?.(e));
  }

  /** The opening `sub` is over: its pages go nowhere; ended for good, the host hears it too. */
  private release(sub: string): void {
    this.port.bind(sub, undefined);
    if (this.sub === sub) this.sub = undefined;
    if (this.ended && this.port.connected()) this.port.send(SYNCOM_EVENTS.unsubscribe, { sub }).catch(() => undefined);
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

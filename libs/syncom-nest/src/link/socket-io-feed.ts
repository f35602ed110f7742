import { safely, type SubscribeOptions, type SyncomError } from 'syncom';
import { answerOk, SYNCOM_EVENTS, type SyncomAnswer } from './socket-io-protocol';

/** What a feed needs of its link. */
export interface FeedPort {
  /** Whether the socket is connected now. */
  connected(): boolean;
  /** Sends an acknowledged message; resolves with the answer's value, rejects with a SyncomError. */
  send(event: string, payload: unknown): Promise<unknown>;
  /** Routes the pages and signals of host subscription `sub` to `feed` (undefined: to no one). */
  bind(sub: string, feed: SocketIoFeed | undefined): void;
  /** The feed ended for good. */
  gone(feed: SocketIoFeed): void;
  /** How many calls the host has answered on this link so far. */
  answered(): number;
}

/**
 * One subscription over a socket.io link. Each opening at the host gets its
 * own sub id (`<feed>.<generation>`), so pages of an older opening are told
 * apart and ignored. Pages reach the subscriber one at a time; the page's ack
 * goes back once the subscriber's promise settled (backpressure). A lost
 * connection suspends the feed; the link reopens it on reconnect from the
 * last event id taken (PROTO-12). A resumed feed refused with 428 (the new
 * connection has no session yet) waits for the next answered call — the
 * dialer's hello — and opens again, as the memory link's feeds do.
 */
export class SocketIoFeed {
  private lastEventId: string | undefined;
  private gen = 0;
  private sub: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private resumed = false;
  /** The link's answered() when this opening was sent. */
  private answeredAtOpen = 0;
  private parked = false;
  private ended = false;

  constructor(
    private readonly port: FeedPort,
    private readonly id: number,
    private readonly args: unknown,
    private readonly options: SubscribeOptions,
  ) {
    this.lastEventId = options.lastEventId;
  }

  /** Opens the feed at the host, after the last event id taken. */
  open(resumed: boolean): void {
    if (this.ended || !this.port.connected()) return;
    this.detach();
    const gen = ++this.gen;
    this.resumed = resumed;
    this.parked = false;
    this.answeredAtOpen = this.port.answered();
    this.sub = `${this.id}.${gen}`;
    this.port.bind(this.sub, this);
    const envelope = { sub: this.sub, args: this.args, lastEventId: this.lastEventId };
    this.port.send(SYNCOM_EVENTS.changes, envelope).catch((e: SyncomError) => this.refused(gen, e));
  }

  /** The connection is gone: forget the host subscription, keep the cursor. */
  suspend(): void {
    this.gen++;
    this.detach();
  }

  /** Opens a feed that waited for the dialer to greet. */
  unpark(): void {
    if (this.parked) this.open(false);
  }

  /** Ends the feed for good, at the host too when the socket is up. */
  unsubscribe(): void {
    if (this.ended) return;
    this.ended = true;
    const sub = this.sub;
    this.suspend();
    this.port.gone(this);
    if (sub !== undefined && this.port.connected()) this.port.send(SYNCOM_EVENTS.unsubscribe, { sub }).catch(() => undefined);
  }

  /** Ends a feed that could not start, telling the subscriber why. */
  fail(error: unknown): void {
    this.ended = true;
    this.signal(this.gen, () => this.options.onError?.(error));
  }

  /** A page of `sub`; `ack` answers the host once the subscriber took it (or failed to). */
  page(sub: string, value: unknown, eventId: string | undefined, ack: (answer: SyncomAnswer) => void): void {
    const gen = this.gen;
    if (sub !== this.sub) return ack(answerOk(null));
    this.resumed = false;
    const step = this.queue.then(() => this.hand(gen, value, eventId));
    this.queue = step;
    void step.then(() => safely(() => ack(answerOk(null))));
  }

  /** The host refused or failed the feed after it opened. */
  hostError(sub: string, error: SyncomError): void {
    if (sub === this.sub) this.refused(this.gen, error);
  }

  /** The host ended the feed. */
  hostEnd(sub: string): void {
    if (sub !== this.sub) return;
    this.signal(this.gen, () => {
      this.ended = true;
      this.detach();
      this.port.gone(this);
      this.options.onEnd?.();
    });
  }

  private refused(gen: number, e: SyncomError): void {
    // A connection lost meanwhile is no refusal: the feed reopens on reconnect.
    if (gen !== this.gen || e.code === 'LINK_DOWN') return;
    if (this.resumed && e.status === 428) {
      // The hello may have been answered while the refusal was on its way: then open again now.
      if (this.port.answered() > this.answeredAtOpen) return this.open(false);
      this.detach();
      this.parked = true;
      return;
    }
    // The host gave up waiting for a page's ack: resume once the pages taken so far are done.
    if (e.code === 'ACK_TIMEOUT') return this.signal(gen, () => this.open(true));
    this.signal(gen, () => this.options.onError?.(e));
  }

  private detach(): void {
    if (this.sub !== undefined) this.port.bind(this.sub, undefined);
    this.sub = undefined;
  }

  /** Queues `fn` behind the pages already received, so errors and ends keep their place. */
  private signal(gen: number, fn: () => unknown): void {
    this.queue = this.queue.then(() => {
      if (gen === this.gen) safely(fn);
    });
  }

  /** Hands one page over; the cursor moves only once the subscriber took it. */
  private async hand(gen: number, value: unknown, eventId: string | undefined): Promise<void> {
    if (gen !== this.gen) return;
    try {
      await this.options.onData(value, eventId);
    } catch {
      // A page that did not land leaves the cursor where it was: a resume offers it again.
      return;
    }
    if (eventId !== undefined) this.lastEventId = eventId;
  }
}

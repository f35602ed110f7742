import type { SubscribeOptions, Subscription } from './contract';
import type { SyncomError } from '../errors';
import type { SessionFeed } from './link-session';
import { safely } from './link-wire';

/** What a feed needs of its link's session. */
export interface FeedHome {
  /** How many calls the host has answered on this link so far. */
  readonly answered: number;
  /** The feed ended for good: the link forgets it. */
  forget(feed: SessionFeed): void;
}

/**
 * What a subscription keeps across connections, whatever moves its pages
 * (the memory link's LinkFeed, the simulator's SimFeed, the socket.io link's
 * SocketIoFeed): the last event id the subscriber took, the generation that
 * tells the live host subscription from older ones, and whether it waits for
 * the dialer's hello (parked) or ended for good. A cut suspends it; it
 * reopens from the last event id taken (PROTO-12); a resumed feed the host
 * refuses with 428 (no session yet on the new connection) parks until the
 * dialer's next answered call.
 */
export abstract class FeedCursor<A = string> implements SessionFeed {
  protected lastEventId: string | undefined;
  /** Bumped on every open and suspend: what an older host subscription sends is ignored. */
  protected gen = 0;
  protected host: Subscription | undefined;
  protected resumed = false;
  protected parked = false;
  protected ended = false;
  /** Errors and ends wait behind the pages already handed over. */
  protected queue: Promise<void> = Promise.resolve();
  /**
   * Whether a 428 that arrives after a greeting was answered opens again at
   * once (the greeting overtook the refusal) rather than parking until the
   * next answer.
   */
  protected reopenWhenGreeted = true;
  private answeredAtOpen = 0;
  /** Whether a page is with the subscriber now (its onData not settled). */
  private taking = false;

  constructor(
    protected readonly home: FeedHome,
    protected readonly method: string,
    protected readonly args: A,
    protected readonly options: SubscribeOptions,
  ) {
    this.lastEventId = options.lastEventId;
  }

  /** Opens the feed at the host on the live connection, after the last event id taken. */
  abstract open(resumed: boolean): void;

  /** The connection is gone: stop listening to the host, keep the cursor. */
  suspend(): void {
    this.gen++;
    const host = this.host;
    this.host = undefined;
    if (host) safely(() => host.unsubscribe());
  }

  /** Opens a feed that waited for the dialer to greet. */
  unpark(): void {
    if (this.parked) this.open(false);
  }

  /** Ends the feed for good, at the host too. */
  unsubscribe(): void {
    if (this.ended) return;
    this.ended = true;
    this.suspend();
    this.home.forget(this);
  }

  /** Ends a feed that could not start, telling the subscriber why. */
  fail(error: unknown): void {
    this.ended = true;
    this.signal(this.gen, () => this.options.onError?.(error));
  }

  /** Starts an opening: its generation, which the host subscription's pages and refusals answer to. */
  protected begin(resumed: boolean): number {
    const gen = ++this.gen;
    this.resumed = resumed;
    this.parked = false;
    this.answeredAtOpen = this.home.answered;
    return gen;
  }

  /** Keeps the host's subscription of generation `gen`, or drops it if the feed moved on meanwhile. */
  protected adopt(gen: number, host: Subscription): void {
    if (gen === this.gen) this.host = host;
    else safely(() => host.unsubscribe());
  }

  /** A resumed feed refused with 428 waits for the dialer's greeting (true); any other refusal is the subscriber's to hear. */
  protected parkOn428(e: SyncomError): boolean {
    if (!this.resumed || e.status !== 428) return false;
    this.suspend();
    // The greeting may have been answered while the refusal was on its way: then it is no use waiting.
    if (this.reopenWhenGreeted && this.home.answered > this.answeredAtOpen) this.open(false);
    else this.parked = true;
    return true;
  }

  /** The host ended the subscription: so does the feed, and the subscriber hears it. */
  protected hostEnded(): void {
    this.ended = true;
    this.host = undefined;
    this.home.forget(this);
    safely(() => this.options.onEnd?.());
  }

  /** Hands one page to the subscriber; the cursor moves only once it took it (a page that did not land is offered again on resume). */
  protected async deliver(value: unknown, eventId: string | undefined): Promise<void> {
    this.taking = true;
    try {
      await this.options.onData(value, eventId);
    } catch {
      return;
    } finally {
      this.taking = false;
    }
    if (eventId !== undefined) this.lastEventId = eventId;
  }

  /**
   * Whether an opening must wait (it then runs behind the page): a page of
   * an earlier opening, still with the subscriber (a reconnect came while
   * it was applied), moves the cursor once taken, and an opening from the
   * cursor before it would hand that page over a second time.
   */
  protected waitForTaken(resumed: boolean): boolean {
    if (!this.taking) return false;
    this.signal(this.gen, () => this.open(resumed));
    return true;
  }

  /** Queues `fn` behind the pages already handed over, so errors and ends keep their place; dropped if the feed moved on. */
  protected signal(gen: number, fn: () => unknown): void {
    const step = this.queue.then(() => {
      if (gen === this.gen) safely(fn);
    });
    this.queue = step;
    this.track(step);
  }

  /** Work the link counts as in flight (the memory link's settle()). */
  protected track(_work: Promise<void>): void {}
}

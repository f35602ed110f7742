import type { HostUnit, SubscribeOptions } from './contract';
import { FeedCursor, type FeedHome } from './feed-cursor';
import type { FaultDice } from './link-faults';
import { fromWire, toWire, wireError, type LinkStats } from './link-wire';

/** What a feed needs of its memory link. */
export interface FeedLink extends FeedHome {
  readonly unit: HostUnit;
  readonly stats: LinkStats;
  /** The live connection's context; undefined while the link is cut. */
  context(): object | undefined;
  dice(): FaultDice;
  sleep(ms: number): Promise<void>;
  /** Counts `work` as in flight until it settles (settle()). */
  track<T>(work: Promise<T>): Promise<T>;
}

/** The wire text of pages by object: a host's feeds at one position send the same page object, encoded once. */
const encoded = new WeakMap<object, string>();

/** A page's JSON, made once per page object (the subscribers each parse their own copy). */
function encodeOnce(value: unknown): string {
  if (typeof value !== 'object' || value === null) return toWire(value);
  let json = encoded.get(value);
  if (json === undefined) encoded.set(value, (json = toWire(value)));
  return json;
}

/** What the dice decided for one page, drawn when the host sent it. */
interface Fate {
  dropped: boolean;
  twice: boolean;
  due: number;
}

/**
 * One subscription over a memory link. Pages reach the subscriber in order,
 * one at a time; the host's onData promise resolves once the subscriber took
 * the page. A cut suspends the feed; the link reopens it on restore from the
 * last event id taken (PROTO-12). A resumed feed the host refuses with 428
 * (no session yet on the new connection) waits for the dialer's next
 * successful call — its hello — and opens again.
 */
export class LinkFeed extends FeedCursor {
  constructor(private readonly link: FeedLink, method: string, args: string, options: SubscribeOptions) {
    super(link, method, args, options);
  }

  /** Opens the feed at the host on the live connection, after the last event id taken. */
  open(resumed: boolean): void {
    const context = this.link.context();
    if (this.ended || context === undefined || this.waitForTaken(resumed)) return;
    const gen = this.begin(resumed);
    this.link.stats.bytesOut += this.args.length;
    try {
      const host = this.link.unit.subscribe(this.method, fromWire(this.args), context, {
        lastEventId: this.lastEventId,
        onData: (value, eventId) => this.page(gen, value, eventId),
        onError: (error) => this.refused(gen, error),
        onEnd: () => this.signal(gen, () => this.hostEnded()),
      });
      this.adopt(gen, host);
    } catch (error) {
      this.refused(gen, error);
    }
  }

  private refused(gen: number, error: unknown): void {
    if (gen !== this.gen) return;
    const e = wireError(error);
    if (!this.parkOn428(e)) this.signal(gen, () => this.options.onError?.(e));
  }

  protected track(work: Promise<void>): void {
    void this.link.track(work);
  }

  private page(gen: number, value: unknown, eventId?: string): Promise<void> {
    if (gen !== this.gen) return Promise.resolve();
    this.resumed = false;
    let json: string;
    try {
      json = encodeOnce(value);
    } catch (error) {
      return Promise.reject(error);
    }
    const fate = this.fate();
    const step = this.queue.then(() => this.take(gen, json, eventId, fate));
    this.queue = step;
    return this.link.track(step);
  }

  /** Draws drop, duplicate and delay, always in this order so a seed replays. */
  private fate(): Fate {
    const dice = this.link.dice();
    const dropped = dice.drop();
    const twice = dice.duplicate();
    const delay = dice.delay();
    return { dropped, twice: twice && !dropped, due: delay > 0 ? Date.now() + delay : 0 };
  }

  private async take(gen: number, json: string, eventId: string | undefined, fate: Fate): Promise<void> {
    if (gen !== this.gen) return;
    if (fate.dropped) {
      this.link.stats.pagesDropped++;
      return;
    }
    if (fate.due > 0) await this.link.sleep(fate.due - Date.now());
    await this.hand(gen, json, eventId);
    if (!fate.twice || gen !== this.gen) return;
    this.link.stats.pagesDuplicated++;
    await this.hand(gen, json, eventId);
  }

  /** Hands one page over; the cursor moves only once the subscriber took it. */
  private async hand(gen: number, json: string, eventId: string | undefined): Promise<void> {
    if (gen !== this.gen) return;
    this.link.stats.pagesDelivered++;
    this.link.stats.bytesIn += json.length;
    await this.deliver(fromWire(json), eventId);
  }
}

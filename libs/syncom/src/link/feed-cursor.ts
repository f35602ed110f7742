import type { SubscribeOptions, Subscription } from './contract';
import type { SyncomError } from '../errors';
import { fromWire, safely } from './link-wire';

/**
 * What a subscription over an in-process link keeps across connections (the
 * memory link's LinkFeed, the simulator's SimFeed; they move pages their own
 * way): the last event id the subscriber took, the generation that tells the
 * live host subscription from older ones, and whether it waits for the
 * dialer's hello (parked) or ended for good. A cut suspends it; it reopens
 * from the last event id taken (PROTO-12); a resumed feed the host refuses
 * with 428 (no session yet on the new connection) parks until the dialer's
 * next answered call.
 */
export abstract class FeedCursor {
  protected lastEventId: string | undefined;
  /** Bumped on every open and suspend: what an older host subscription sends is ignored. */
  protected gen = 0;
  protected host: Subscription | undefined;
  protected resumed = false;
  protected parked = false;
  protected ended = false;

  constructor(protected readonly method: string, protected readonly args: string, protected readonly options: SubscribeOptions) {
    this.lastEventId = options.lastEventId;
  }

  /** Opens the feed at the host on the live connection, after the last event id taken. */
  abstract open(resumed: boolean): void;

  /** The feed ended for good: its link forgets it. */
  protected abstract forget(): void;

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
  protected close(): void {
    if (this.ended) return;
    this.ended = true;
    this.suspend();
    this.forget();
  }

  /** Keeps the host's subscription of generation `gen`, or drops it if the feed moved on meanwhile. */
  protected adopt(gen: number, host: Subscription): void {
    if (gen === this.gen) this.host = host;
    else safely(() => host.unsubscribe());
  }

  /** A resumed feed refused with 428 parks (true); any other refusal is the subscriber's to hear. */
  protected parkOn428(e: SyncomError): boolean {
    if (!this.resumed || e.status !== 428) return false;
    this.suspend();
    this.parked = true;
    return true;
  }

  /** The host ended the subscription: so does the feed, and the subscriber hears it. */
  protected hostEnded(): void {
    this.ended = true;
    this.host = undefined;
    this.forget();
    safely(() => this.options.onEnd?.());
  }

  /** Hands one page to the subscriber; the cursor moves only once it took it (a page that did not land is offered again on resume). */
  protected async deliver(json: string, eventId: string | undefined): Promise<void> {
    try {
      await this.options.onData(fromWire(json), eventId);
    } catch {
      return;
    }
    if (eventId !== undefined) this.lastEventId = eventId;
  }
}

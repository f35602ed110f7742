import type { SubscribeOptions, Subscription } from '../link/contract';
import { FeedCursor, type FeedHome } from '../link/feed-cursor';
import { fromWire, safely, toWire, wireError } from '../link/link-wire';
import type { Channel, Packet, SimNetwork } from './sim-network';
import type { SimConnection } from './sim-link';

/** What a feed needs of its link. */
export interface FeedPort extends FeedHome {
  readonly net: SimNetwork;
  /** Dialer to host: where the subscribe request goes. */
  readonly up: Channel;
  /** Host to dialer: pages and the subscription's errors and end, in order. */
  readonly pages: Channel;
  /** Dialer to host: "page taken", which lets the host's feed send the next one (backpressure). */
  readonly acks: Channel;
  /** The live connection, if any. */
  connection(): SimConnection | undefined;
}

const isBootstrap = (json: string) => json.startsWith('{"bootstrap":true');

/**
 * One changes subscription over a simulated link. Each page the host sends is
 * a packet; once the subscriber took it, an ack packet goes back and only its
 * delivery releases the host's feed. So the host moves on at a point the
 * schedule chose, not when the subscriber's work happened to finish. A cut
 * suspends the feed; restore reopens it from the last event id taken; a
 * reopened feed refused with 428 waits for the dialer's next answered call,
 * or opens again at once when that call was answered first.
 */
export class SimFeed extends FeedCursor {
  constructor(private readonly port: FeedPort, method: string, args: string, options: SubscribeOptions) {
    super(port, method, args, options);
    // A 428 that a greeting overtook opens again at once, as on the memory and socket.io links: parked until the
    // next answer, a dialer with nothing to push stayed deaf to the host for good (test/sim/sim-link.spec.ts).
    this.reopenWhenGreeted = true;
  }

  /** Ask the host, on the live connection, for the pages after the last event id taken. */
  open(resumed: boolean): void {
    const conn = this.port.connection();
    if (this.ended || !conn) return;
    const gen = this.begin(resumed);
    this.port.net.send(this.port.up, { label: `${this.method}:open`, deliver: () => this.attach(conn, gen) });
  }

  private attach(conn: SimConnection, gen: number): void {
    if (gen !== this.gen || !conn.alive) return;
    let host: Subscription;
    try {
      host = conn.unit.subscribe(this.method, fromWire(this.args), conn.context, {
        lastEventId: this.lastEventId,
        onData: (value, eventId) => this.page(gen, value, eventId),
        onError: (error) => this.post(gen, 'error', error),
        onEnd: () => this.post(gen, 'end'),
      });
    } catch (error) {
      return this.post(gen, 'error', error);
    }
    this.adopt(gen, host);
  }

  private page(gen: number, value: unknown, eventId: string | undefined): Promise<void> {
    if (gen !== this.gen) return Promise.resolve();
    let json: string;
    try {
      json = toWire(value);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<void>((release) => {
      const ack = () => this.port.net.send(this.port.acks, { label: 'ack', deliver: release, discard: release });
      this.port.net.send(this.port.pages, this.packet({ gen, json, eventId, ack, release }));
    });
  }

  /** A page packet; its copy (duplicate fault) acks nothing and cannot be lost again. */
  private packet(p: { gen: number; json: string; eventId?: string; ack?: () => void; release?: () => void }): Packet {
    const boot = isBootstrap(p.json);
    return {
      label: boot ? 'bootstrap' : 'page',
      deliver: () => {
        const work = this.take(p.gen, p.json, p.eventId).then(p.ack);
        // A bootstrap's work is the whole snapshot exchange, which waits on this network:
        // not the receiver's work of this step (its commits are waited for as the committer's).
        return boot ? undefined : work;
      },
      // A lost page is acked all the same: the host's feed moves on and the dialer sees a gap (LOG-11).
      lose: p.ack,
      again: p.ack ? () => this.packet({ gen: p.gen, json: p.json, eventId: p.eventId }) : undefined,
      discard: p.release,
    };
  }

  private async take(gen: number, json: string, eventId: string | undefined): Promise<void> {
    if (gen !== this.gen) return;
    this.resumed = false;
    await this.deliver(fromWire(json), eventId);
  }

  /** The subscription's error or end, a packet behind the pages already sent. */
  private post(gen: number, kind: 'error' | 'end', error?: unknown): void {
    this.port.net.send(this.port.pages, {
      label: `${this.method}:${kind}`,
      deliver: () => {
        if (gen !== this.gen) return;
        if (kind === 'end') return this.hostEnded();
        const e = wireError(error);
        if (!this.parkOn428(e)) safely(() => this.options.onError?.(e));
      },
    });
  }
}

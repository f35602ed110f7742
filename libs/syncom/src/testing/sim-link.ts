import type { HostUnit, LinkEvent, SubscribeOptions, Subscription, SyncLink } from '../link/contract';
import { LinkConnection, type CallResult, type PendingCall } from '../link/link-connection';
import { LinkSession } from '../link/link-session';
import { fromWire, invoke, linkDown, linkTimeout, safely, toWire, wireError } from '../link/link-wire';
import { SimFeed, type FeedPort } from './sim-feed';
import type { Channel, LinkFaultState, Packet, SimNetwork } from './sim-network';

/** One connection of a simulated link: a fresh context at the host's unit of the moment, alive until cut. */
export class SimConnection extends LinkConnection {
  constructor(context: object, readonly unit: HostUnit) {
    super(context);
  }
}

/** Options of a SimLink. */
export interface SimLinkOptions {
  net: SimNetwork;
  /** The link's name, unique in the run: its channels' ids start with it. */
  name: string;
  /** The dialing node and the hosting node (indices). */
  from: number;
  to: number;
  /** The host's unit, looked up at each connection (a rebooted node has a new one). */
  unitOf(node: number): HostUnit;
  faults: LinkFaultState;
}

type Call = PendingCall<unknown>;

/**
 * A SyncLink over the simulated network (LINK-9): calls, answers, pages and
 * acks are packets the schedule delivers, loses, copies, reorders or throws
 * away with a cut. A lost call rejects with LINK_TIMEOUT when its timeout
 * packet is delivered; a cut rejects calls in flight with LINK_DOWN.
 */
export class SimLink implements SyncLink {
  /** Dialer to host: requests and subscribe asks. */
  readonly up: Channel;
  /** Host to dialer: answers, and the timeouts of lost calls. */
  readonly answers: Channel;
  /** Host to dialer: changes pages and the subscription's errors and end, in order. */
  readonly pages: Channel;
  /** Dialer to host: "page taken", in order. */
  readonly acks: Channel;
  private readonly session: LinkSession<SimConnection>;

  constructor(readonly o: SimLinkOptions) {
    const { net, name, from, to, faults } = o;
    this.up = net.open(`${name}/up`, to, false, faults);
    this.answers = net.open(`${name}/answers`, from, false, faults);
    this.pages = net.open(`${name}/pages`, from, true, faults);
    this.acks = net.open(`${name}/acks`, to, true, faults);
    this.session = new LinkSession<SimConnection>({
      // What is queued on the link's channels is gone with the connection.
      sever: () => {
        for (const ch of this.channels()) net.purge(ch);
      },
      release: (conn) => safely(() => conn.unit.disconnect(conn.context)),
      closed: () => {
        for (const ch of this.channels()) net.close(ch);
      },
    });
    this.session.begin(this.connection);
  }

  /** Whether a connection is up. */
  get connected(): boolean {
    return this.session.live !== undefined;
  }

  /** Whether the dialer closed the link for good. */
  get isClosed(): boolean {
    return this.session.closed;
  }

  call(method: string, args: unknown): Promise<unknown> {
    const conn = this.session.live;
    if (this.session.closed || !conn) return Promise.reject(linkDown());
    let json: string;
    try {
      json = toWire(args);
    } catch (error) {
      return Promise.reject(error);
    }
    const call = conn.pending<unknown>();
    this.o.net.send(this.up, this.request(conn, method, json, call));
    return call.promise;
  }

  subscribe(method: string, args: unknown, options: SubscribeOptions): Subscription {
    return this.session.subscribe(new SimFeed(this.port, method, toWire(args), options));
  }

  on(event: LinkEvent, listener: (...args: unknown[]) => void): void {
    this.session.on(event, listener);
  }

  off(event: LinkEvent, listener: (...args: unknown[]) => void): void {
    this.session.off(event, listener);
  }

  close(): void {
    this.session.close();
  }

  /** Drop the connection: what is queued is gone, calls in flight fail with LINK_DOWN, 'close' fires. */
  cut(): void {
    this.session.dropped();
  }

  /** Connect again: 'open', 'reconnect', then every feed asks to resume from its last event id. */
  restore(): void {
    this.session.connected(this.connection);
  }

  /** What the feeds need of this link. */
  private get port(): FeedPort {
    const session = this.session;
    return {
      net: this.o.net, up: this.up, pages: this.pages, acks: this.acks,
      connection: () => session.live,
      forget: (feed) => session.forget(feed),
      get answered() {
        return session.answered;
      },
    };
  }

  private channels(): Channel[] {
    return [this.up, this.answers, this.pages, this.acks];
  }

  /** Connection n: a fresh context at the host's unit of the moment (a rebooted node has a new one). */
  private readonly connection = (n: number) => new SimConnection({ connection: n }, this.o.unitOf(this.o.to));

  /** A request packet; its copy (duplicate fault) runs at the host again, and its answer goes nowhere. */
  private request(conn: SimConnection, method: string, json: string, call?: Call): Packet {
    return {
      label: method,
      deliver: () => this.serve(conn, method, json, call),
      lose: () => {
        if (call) this.o.net.send(this.answers, { label: `${method}:timeout`, deliver: () => this.settle(call, { error: linkTimeout() }) });
      },
      again: () => this.request(conn, method, json),
    };
  }

  private serve(conn: SimConnection, method: string, json: string, call?: Call): Promise<void> {
    const reply = (r: CallResult<unknown>) => {
      if (!call || !conn.alive) return;
      this.o.net.send(this.answers, {
        label: `${method}:answer`,
        deliver: () => this.settle(call, r),
        lose: () => this.settle(call, { error: linkTimeout() }),
      });
    };
    return invoke(() => conn.unit.call(method, fromWire(json), conn.context)).then(
      (value) => reply({ value: toWire(value) }),
      (error: unknown) => reply({ error: wireError(error) }),
    );
  }

  private settle(call: Call, r: CallResult<unknown>): void {
    if (!call.settle('error' in r ? r : { value: fromWire(r.value as string) })) return;
    if ('error' in r) return;
    // A greeting may just have landed: feeds refused for want of one ask again.
    this.session.answer();
  }
}

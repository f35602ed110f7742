import type { HostUnit, LinkEvent, SubscribeOptions, Subscription, SyncLink } from '../link/contract';
import { fromWire, invoke, linkDown, linkTimeout, safely, toWire, wireError } from '../link/link-wire';
import type { SyncomError } from '../errors';
import { SimFeed } from './sim-feed';
import type { Channel, LinkFaultState, Packet, SimNetwork } from './sim-network';

/** A call waiting for its answer. */
interface PendingCall {
  resolve(value: unknown): void;
  reject(error: SyncomError): void;
}

/** One connection of a simulated link: a fresh context at the host, alive until cut. */
export interface SimConnection {
  readonly ctx: object;
  readonly unit: HostUnit;
  alive: boolean;
  readonly calls: Set<PendingCall>;
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

type Answer = { json: string } | { error: SyncomError };

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
  private conn: SimConnection | undefined;
  private closed = false;
  private count = 0;
  private readonly feeds = new Set<SimFeed>();
  private readonly listeners = new Map<LinkEvent, Set<(...args: unknown[]) => void>>();

  constructor(readonly o: SimLinkOptions) {
    const { net, name, from, to, faults } = o;
    this.up = net.open(`${name}/up`, to, false, faults);
    this.answers = net.open(`${name}/answers`, from, false, faults);
    this.pages = net.open(`${name}/pages`, from, true, faults);
    this.acks = net.open(`${name}/acks`, to, true, faults);
    this.connect();
  }

  /** Whether a connection is up. */
  get connected(): boolean {
    return this.conn !== undefined;
  }

  /** Whether the dialer closed the link for good. */
  get isClosed(): boolean {
    return this.closed;
  }

  call(method: string, args: unknown): Promise<unknown> {
    const conn = this.conn;
    if (this.closed || !conn) return Promise.reject(linkDown());
    let json: string;
    try {
      json = toWire(args);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const call: PendingCall = { resolve, reject };
      conn.calls.add(call);
      this.o.net.send(this.up, this.request(conn, method, json, call));
    });
  }

  subscribe(method: string, args: unknown, options: SubscribeOptions): Subscription {
    const feed = new SimFeed(this.port(), method, toWire(args), options);
    if (this.closed) {
      queueMicrotask(() => options.onError?.(linkDown()));
      return { unsubscribe: () => undefined };
    }
    this.feeds.add(feed);
    feed.open(false);
    return { unsubscribe: () => feed.end() };
  }

  on(event: LinkEvent, listener: (...args: unknown[]) => void): void {
    const set = this.listeners.get(event) ?? new Set();
    this.listeners.set(event, set.add(listener));
  }

  off(event: LinkEvent, listener: (...args: unknown[]) => void): void {
    this.listeners.get(event)?.delete(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const wasUp = this.drop();
    for (const feed of [...this.feeds]) feed.end();
    for (const ch of [this.up, this.answers, this.pages, this.acks]) this.o.net.close(ch);
    if (wasUp) this.emit('close');
  }

  /** Drop the connection: what is queued is gone, calls in flight fail with LINK_DOWN, 'close' fires. */
  cut(): void {
    if (this.drop()) this.emit('close');
  }

  /** Connect again: 'open', 'reconnect', then every feed asks to resume from its last event id. */
  restore(): void {
    if (this.closed || this.conn) return;
    this.connect();
    this.emit('open');
    if (this.count > 1) this.emit('reconnect');
    for (const feed of [...this.feeds]) feed.open(true);
  }

  private port() {
    return {
      net: this.o.net, up: this.up, pages: this.pages, acks: this.acks,
      connection: () => this.conn,
      forget: (feed: SimFeed) => void this.feeds.delete(feed),
    };
  }

  private connect(): void {
    this.count++;
    this.conn = { ctx: { connection: this.count }, unit: this.o.unitOf(this.o.to), alive: true, calls: new Set() };
  }

  private drop(): boolean {
    const conn = this.conn;
    if (!conn) return false;
    this.conn = undefined;
    conn.alive = false;
    for (const ch of [this.up, this.answers, this.pages, this.acks]) this.o.net.purge(ch);
    for (const feed of this.feeds) feed.suspend();
    for (const call of [...conn.calls]) this.settle(conn, call, { error: linkDown() });
    safely(() => conn.unit.disconnect(conn.ctx));
    return true;
  }

  private emit(event: LinkEvent): void {
    for (const l of [...(this.listeners.get(event) ?? [])]) safely(() => l());
  }

  /** A request packet; its copy (duplicate fault) runs at the host again, and its answer goes nowhere. */
  private request(conn: SimConnection, method: string, json: string, call?: PendingCall): Packet {
    return {
      label: method,
      deliver: () => this.serve(conn, method, json, call),
      lose: () => {
        if (call) this.o.net.send(this.answers, { label: `${method}:timeout`, deliver: () => this.settle(conn, call, { error: linkTimeout() }) });
      },
      again: () => this.request(conn, method, json),
    };
  }

  private serve(conn: SimConnection, method: string, json: string, call?: PendingCall): Promise<void> {
    const reply = (r: Answer) => {
      if (!call || !conn.alive) return;
      this.o.net.send(this.answers, {
        label: `${method}:answer`,
        deliver: () => this.settle(conn, call, r),
        lose: () => this.settle(conn, call, { error: linkTimeout() }),
      });
    };
    return invoke(() => conn.unit.call(method, fromWire(json), conn.ctx)).then(
      (value) => reply({ json: toWire(value) }),
      (error: unknown) => reply({ error: wireError(error) }),
    );
  }

  private settle(conn: SimConnection, call: PendingCall, r: Answer): void {
    if (!conn.calls.delete(call)) return;
    if ('error' in r) return call.reject(r.error);
    call.resolve(fromWire(r.json));
    // A greeting may just have landed: feeds refused for want of one ask again.
    for (const feed of [...this.feeds]) feed.unpark();
  }
}

import { SyncomError } from '../errors';
import type { HostUnit, LinkEvent, SubscribeOptions, Subscription, SyncLink } from './contract';
import { LinkConnection, pullStream } from './link-connection';
import { LinkSession } from './link-session';
import { LinkFeed, type FeedLink } from './link-feed';
import { createFaultDice, createSleeper, type FaultDice, type LinkFaults } from './link-faults';
import { emptyStats, fromWire, invoke, linkDown, linkTimeout, safely, toWire, wireError, type LinkStats } from './link-wire';

export type { LinkFaults } from './link-faults';
export type { LinkStats } from './link-wire';

/** Options of createMemoryLink. */
export interface MemoryLinkOptions {
  /** Copied into each connection's context, beside `connection` (1, 2, ...). */
  context?: Record<string, unknown>;
  /** Faults to inject from the start; link.faults() changes them later. */
  faults?: LinkFaults;
  /** Start connected (default true); false: the first restore() connects. */
  connected?: boolean;
}

/** A SyncLink to a host unit in this process, with controls for tests. */
export interface MemoryLink extends SyncLink {
  stream(id: string): AsyncIterable<Uint8Array>;
  /** Whether a connection is up. */
  readonly connected: boolean;
  /** How many connections this link has opened. */
  readonly connections: number;
  /** Drops the connection: calls in flight fail with LINK_DOWN, subscriptions are suspended, 'close' fires. */
  cut(): void;
  /** Opens a new connection after a cut: 'open', then 'reconnect', then subscriptions resume from their last event id. */
  restore(): void;
  /**
   * Replaces the injected faults (a new PRNG from their seed).
   * @throws TypeError for a probability outside 0..1 or a negative delay.
   */
  faults(faults: LinkFaults): void;
  /** A copy of the traffic counts. */
  stats(): LinkStats;
  /** Resolves when nothing is in flight: no call awaiting its answer, no page being delivered or delayed. */
  settle(): Promise<void>;
}

type Settled = { json: string } | { error: unknown };
type Listener = (...args: unknown[]) => void;

const noop = () => undefined;

/**
 * An in-process SyncLink to a host unit (LINK-10). Arguments, answers and
 * pages cross it as JSON copies; every connection gets a new context, so a cut
 * ends the host's session and the dialer must greet again.
 *
 * @throws SyncomError INVALID_ARGUMENT when `unit` is no host unit.
 * @example
 * const link = createMemoryLink(hub.sync.unit({ access: 'public' }), { faults: { seed: 3, drop: 0.05 } });
 * link.cut(); link.restore(); await link.settle();
 */
export function createMemoryLink(unit: HostUnit, options: MemoryLinkOptions = {}): MemoryLink {
  // Checked here, not at the first call: a missing unit (null, a storage instead of storage.sync.unit()) failed later, as a TypeError.
  const u = unit as Partial<Record<keyof HostUnit, unknown>> | null;
  if (typeof u !== 'object' || u === null || !(['call', 'subscribe', 'stream', 'disconnect'] as const).every((m) => typeof u[m] === 'function')) {
    throw new SyncomError('INVALID_ARGUMENT', 'createMemoryLink(unit) takes a host unit: storage.sync.unit()');
  }
  return new InProcessLink(unit, options);
}

class InProcessLink implements MemoryLink {
  private dice: FaultDice;
  private readonly sleeper = createSleeper();
  private readonly counters = emptyStats();
  private readonly session: LinkSession;
  private inflight = 0;
  private idle: Array<() => void> = [];
  /**
   * A call failed before the first connection came (LINK_DOWN): that
   * connection is announced as a reconnect, so the dialer greets on it. As
   * 'open' alone, a dialer whose first hello met the link not yet connected
   * was never greeted.
   */
  private missedFirst = false;
  /** Answers leave in the order the host gave them unless reorder is on. */
  private answerGate: Promise<void> = Promise.resolve();
  private readonly core: FeedLink;

  constructor(
    private readonly unit: HostUnit,
    private readonly options: MemoryLinkOptions,
  ) {
    this.dice = createFaultDice(options.faults);
    this.session = new LinkSession({
      release: (conn) => {
        this.sleeper.wakeAll();
        safely(() => this.unit.disconnect(conn.context));
      },
    });
    const session = this.session;
    this.core = {
      unit,
      stats: this.counters,
      get answered() {
        return session.answered;
      },
      context: () => session.live?.context,
      dice: () => this.dice,
      sleep: (ms) => this.sleeper.sleep(ms),
      track: (work) => this.track(work),
      forget: (feed) => session.forget(feed),
    };
    if (options.connected !== false) this.session.begin(this.connection);
  }

  get connected(): boolean {
    return this.session.live !== undefined;
  }

  get connections(): number {
    return this.session.connections;
  }

  call(method: string, args: unknown): Promise<unknown> {
    this.counters.calls++;
    const conn = this.session.live;
    if (!conn) {
      if (this.session.connections === 0) this.missedFirst = true;
      return Promise.reject(linkDown());
    }
    let json: string;
    try {
      json = toWire(args);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.track(this.exchange(conn, method, json));
  }

  subscribe(method: string, args: unknown, options: SubscribeOptions): Subscription {
    let json: string;
    try {
      json = toWire(args);
    } catch (error) {
      const feed = new LinkFeed(this.core, method, 'null', options);
      feed.fail(error);
      return { unsubscribe: () => feed.unsubscribe() };
    }
    return this.session.subscribe(new LinkFeed(this.core, method, json, options));
  }

  stream(id: string): AsyncIterable<Uint8Array> {
    return pullStream(this.unit, this.session.live ?? LinkConnection.dead(), id, this.core);
  }

  on(event: LinkEvent, listener: Listener): void {
    this.session.on(event, listener);
  }

  off(event: LinkEvent, listener: Listener): void {
    this.session.off(event, listener);
  }

  close(): void {
    this.session.close();
  }

  cut(): void {
    this.session.dropped();
  }

  restore(): void {
    this.session.connected(this.connection, this.missedFirst);
  }

  faults(faults: LinkFaults): void {
    this.dice = createFaultDice(faults);
  }

  stats(): LinkStats {
    return { ...this.counters };
  }

  async settle(): Promise<void> {
    for (;;) {
      while (this.inflight > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
      // A few microtask turns: work that starts right after the last one ended still counts.
      for (let i = 0; i < 10 && this.inflight === 0; i++) await Promise.resolve();
      if (this.inflight === 0) return;
    }
  }

  /** Connection n's context: the options' context beside `connection`. */
  private readonly connection = (n: number) => new LinkConnection({ ...this.options.context, connection: n });

  private track<T>(work: Promise<T>): Promise<T> {
    this.inflight++;
    const done = () => {
      if (--this.inflight > 0) return;
      const waiting = this.idle;
      this.idle = [];
      for (const resolve of waiting) resolve();
    };
    work.then(done, done);
    return work;
  }

  /** One call's round trip, faults included; rejects with LINK_DOWN if the connection dies first. */
  private exchange(conn: LinkConnection, method: string, json: string): Promise<unknown> {
    const lost = this.dice.drop();
    const lostOnTheWay = lost && this.dice.coin();
    const twice = !lostOnTheWay && this.dice.duplicate();
    const delay = this.dice.delay();
    const answer = lostOnTheWay ? Promise.resolve('null') : this.send(conn, method, json);
    if (twice) {
      this.counters.callsDuplicated++;
      this.track(this.send(conn, method, json)).catch(noop);
    }
    const settled = answer.then((text): Settled => ({ json: text }), (error: unknown): Settled => ({ error }));
    const timed = this.dice.delays ? settled.then((r) => (conn.alive ? this.later(r, delay) : r)) : settled;
    return conn.guard(timed.then((r) => this.receive(conn, r, lost)));
  }

  private send(conn: LinkConnection, method: string, json: string): Promise<string> {
    this.counters.bytesOut += json.length;
    return invoke(() => this.unit.call(method, fromWire(json), conn.context)).then(toWire);
  }

  private receive(conn: LinkConnection, r: Settled, lost: boolean): unknown {
    if (!conn.alive) throw linkDown();
    if (lost) {
      this.counters.callsDropped++;
      throw linkTimeout();
    }
    if ('error' in r) throw wireError(r.error);
    this.counters.bytesIn += r.json.length;
    // A greeting may have just landed: feeds refused for want of one open now.
    this.session.answer();
    return fromWire(r.json);
  }

  /** Holds an answer `delay` ms; without reorder, never past one the host gave earlier. */
  private later(r: Settled, delay: number): Promise<Settled> {
    if (this.dice.reorder) return this.sleeper.sleep(delay).then(() => r);
    const due = Date.now() + delay;
    const step = this.answerGate.then(() => this.sleeper.sleep(due - Date.now()));
    this.answerGate = step;
    return step.then(() => r);
  }
}

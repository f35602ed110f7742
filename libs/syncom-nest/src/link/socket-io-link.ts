import { LinkListeners, SyncomError, type LinkEvent, type SubscribeOptions, type Subscription, type SyncLink } from 'syncom';
import type { Socket as ClientSocket } from 'socket.io-client';
import { linkDown, linkTimeout } from './link-errors';
import { SocketIoFeed } from './socket-io-feed';
import { pullChunks } from './socket-io-stream';
import { fromWireError, SYNCOM_EVENTS, unwrapAnswer, type FeedErrorMessage, type PageMessage } from './socket-io-protocol';

/** Options of createSocketIoLink. */
export interface SocketIoLinkOptions {
  /** How long a sent message waits for its ack, ms (default 30 000); then the call rejects with LINK_TIMEOUT. */
  timeout?: number;
}

/** A SyncLink over a socket.io-client socket. */
export interface SocketIoLink extends SyncLink {
  stream(id: string): AsyncIterable<Uint8Array>;
  /** Whether the socket is connected now. */
  readonly connected: boolean;
}

type Listener = (...args: unknown[]) => void;
type Waiter = { resolve: () => void; reject: (e: SyncomError) => void };

const noop = () => undefined;

/**
 * The dialer's side of the socket.io gateway (LINK-2): a SyncLink over a
 * socket.io-client socket. The link owns the socket: close() disconnects it.
 * Calls made before the socket first connected wait for it; calls made while
 * it is down after that reject with LINK_DOWN at once (the dialer greets
 * again on 'reconnect'). socket.io reconnects; this link re-opens every
 * subscription from the last event id taken.
 *
 * @example
 * const connect = (node) => createSocketIoLink(io(node.url, { auth: { token: node.token }, transports: ['websocket'] }));
 * const storage = await open({ path: 'data', sync: { connect } });
 */
export function createSocketIoLink(socket: ClientSocket, options: SocketIoLinkOptions = {}): SocketIoLink {
  const timeout = options.timeout ?? 30_000;
  if (!(timeout > 0)) throw new TypeError('timeout must be a positive number of milliseconds');
  return new SocketLink(socket, timeout);
}

class SocketLink implements SocketIoLink {
  private closed = false;
  private everConnected: boolean;
  /** Bumped on every connect: a stream or answer from an older connection is stale. */
  private connection = 0;
  private refusal: SyncomError | undefined;
  private waiters = new Set<Waiter>();
  private readonly inflight = new Set<() => void>();
  private readonly feeds = new Set<SocketIoFeed>();
  private readonly subs = new Map<string, SocketIoFeed>();
  private readonly listeners = new LinkListeners();
  private feedCount = 0;
  private answers = 0;
  private redial?: ReturnType<typeof setTimeout>;
  private readonly handlers: [string, (...args: never[]) => void][] = [
    ['connect', () => this.onConnect()],
    ['disconnect', (reason: string) => this.onDisconnect(reason)],
    ['connect_error', (error: Error & { data?: unknown }) => this.onConnectError(error)],
    [SYNCOM_EVENTS.page, (m: PageMessage, ack: (a: unknown) => void) => this.onPage(m, ack)],
    [SYNCOM_EVENTS.feedError, (m: FeedErrorMessage) => this.subs.get(m?.sub)?.hostError(m.sub, fromWireError(m.error))],
    [SYNCOM_EVENTS.feedEnd, (m: { sub: string }) => this.subs.get(m?.sub)?.hostEnd(m.sub)],
  ];

  /** The manager ran out of reconnection attempts: nothing will connect unless the app redials. */
  private readonly onGaveUp = () => this.release((this.refusal = linkDown()));

  constructor(private readonly socket: ClientSocket, private readonly timeout: number) {
    this.everConnected = socket.connected;
    for (const [event, handler] of this.handlers) socket.on(event, handler as Listener);
    socket.io.on('reconnect_failed', this.onGaveUp);
    if (!socket.connected && !socket.active) socket.connect();
  }

  get connected(): boolean {
    return !this.closed && this.socket.connected;
  }

  async call(method: string, args: unknown): Promise<unknown> {
    // JSON is what socket.io carries; a cycle would otherwise overflow its binary scan.
    JSON.stringify(args);
    await this.ready();
    return this.send(method, args ?? null);
  }

  subscribe(method: string, args: unknown, options: SubscribeOptions): Subscription {
    const feed = new SocketIoFeed(this.port, ++this.feedCount, args ?? null, options);
    try {
      // The gateway serves one subscription; the unit would answer anything else the same way.
      if (method !== SYNCOM_EVENTS.changes) throw new SyncomError('UNKNOWN_METHOD', `no subscription ${method}`, { status: 404 });
      JSON.stringify(args);
      if (this.closed) throw linkDown();
      this.feeds.add(feed);
      feed.open(false);
    } catch (error) {
      feed.fail(error);
    }
    return { unsubscribe: () => feed.unsubscribe() };
  }

  stream(id: string): AsyncIterable<Uint8Array> {
    return pullChunks(id, {
      connection: () => (this.connected ? this.connection : undefined),
      send: (event, payload) => this.send(event, payload),
    });
  }

  on(event: LinkEvent, listener: Listener): void {
    this.listeners.on(event, listener);
  }

  off(event: LinkEvent, listener: Listener): void {
    this.listeners.off(event, listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.redial);
    for (const feed of [...this.feeds]) feed.unsubscribe();
    this.release(linkDown());
    // disconnect() fires 'disconnect' (calls in flight fail, 'close' fires) before the handlers go.
    this.socket.disconnect();
    for (const [event, handler] of this.handlers) this.socket.off(event, handler as Listener);
    this.socket.io.off('reconnect_failed', this.onGaveUp);
  }

  private readonly port = {
    connected: () => this.connected,
    send: (event: string, payload: unknown) => this.send(event, payload),
    bind: (sub: string, feed: SocketIoFeed | undefined) => (feed ? this.subs.set(sub, feed) : this.subs.delete(sub)),
    gone: (feed: SocketIoFeed) => this.feeds.delete(feed),
    answered: () => this.answers,
  };

  /** Resolves once the socket is up: at once, or at its first connect; LINK_DOWN or the host's refusal otherwise. */
  private ready(): Promise<void> {
    if (this.connected) return Promise.resolve();
    if (this.closed || this.everConnected) return Promise.reject(linkDown());
    if (this.refusal) return Promise.reject(this.refusal);
    return new Promise((resolve, reject) => this.waiters.add({ resolve, reject }));
  }

  /** One acknowledged message; the answer's value, or a SyncomError. */
  private send(event: string, payload: unknown): Promise<unknown> {
    if (!this.connected) return Promise.reject(linkDown());
    return new Promise((resolve, reject) => {
      const conn = this.connection;
      const down = () => reject(linkDown());
      this.inflight.add(down);
      this.socket.timeout(this.timeout).emit(event, payload, (err: Error | null, answer: unknown) => {
        this.inflight.delete(down);
        if (err) return reject(conn !== this.connection || !this.socket.connected ? linkDown() : linkTimeout(this.timeout));
        try {
          resolve(unwrapAnswer(answer));
        } catch (e) {
          return reject(e);
        }
        // An answered call may be the hello that a resumed feed waits for.
        this.answers++;
        for (const feed of [...this.feeds]) feed.unpark();
      });
    });
  }

  private onConnect(): void {
    if (this.closed) return void this.socket.disconnect();
    this.connection++;
    const again = this.everConnected;
    this.everConnected = true;
    this.refusal = undefined;
    for (const w of this.takeWaiters()) w.resolve();
    this.listeners.emit('open');
    if (again) this.listeners.emit('reconnect');
    // After the listeners: the dialer's hello is on its way before the feeds reopen.
    for (const feed of [...this.feeds]) feed.open(again);
  }

  private onDisconnect(reason: string): void {
    for (const down of [...this.inflight]) down();
    this.inflight.clear();
    for (const feed of this.feeds) feed.suspend();
    this.listeners.emit('close');
    // socket.io does not come back by itself after the server dropped the socket; a sync link does.
    if (reason === 'io server disconnect' && !this.closed) {
      this.redial = setTimeout(() => this.closed || this.socket.connect(), this.socket.io.reconnectionDelay());
      this.redial.unref?.();
    }
  }

  /** A refused handshake (the gateway's session middleware) or a manager that gave up fails the waiting calls. */
  private onConnectError(error: Error & { data?: unknown }): void {
    if (this.socket.active && this.socket.io.reconnection()) return;
    const data = error.data as { code?: unknown } | undefined;
    this.refusal = data && typeof data.code === 'string' ? fromWireError({ message: error.message, ...data }) : linkDown();
    this.release(this.refusal);
  }

  private onPage(m: PageMessage, ack: (answer: unknown) => void): void {
    const reply = typeof ack === 'function' ? ack : noop;
    const feed = typeof m?.sub === 'string' ? this.subs.get(m.sub) : undefined;
    if (!feed) return reply({ ok: true, value: null });
    feed.page(m.sub, m.value, typeof m.eventId === 'string' ? m.eventId : undefined, reply);
  }

  private takeWaiters(): Waiter[] {
    const all = [...this.waiters];
    this.waiters = new Set();
    return all;
  }

  private release(error: SyncomError): void {
    for (const w of this.takeWaiters()) w.reject(error);
  }
}

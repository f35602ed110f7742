import type { LinkEvent, SubscribeOptions, Subscription, SyncLink } from '../link/contract';
import { SyncomError } from '../errors';
import type { ClientSocket } from './client-socket';
import { LinkConnection } from '../link/link-connection';
import { LinkSession } from '../link/link-session';
import { linkDown } from '../link/link-wire';
import { earlyDrop, type EarlyDrop, STEADY_MS } from '../link/early-drops';
import { SocketIoFeed, type FeedPort } from './socket-io-feed';
import { pageAcksOf } from './held-acks';
import { pullChunks } from './socket-io-stream';
import { attemptFailure } from './attempt-failure';
import { boundDecoder, boundFrames, frameRefused, frameTooLarge, messageRefused } from './frame-bound';
import { fromWireError, SYNCOM_EVENTS, unwrapAnswer, type FeedErrorMessage, type PageAcksOffer, type PageMessage } from './socket-io-protocol';

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

/** No answer came back in time; the host may or may not have run the call. */
function linkTimeout(ms: number): SyncomError {
  return new SyncomError('LINK_TIMEOUT', `No answer within ${ms} ms; the host may or may not have run the call — retry`);
}

/**
 * The dialer's side of the socket.io gateway (LINK-2): a SyncLink over a
 * socket.io-client socket the caller made (its CommonJS or its ESM build:
 * ClientSocket), so this module never loads socket.io-client itself. The
 * link owns the socket: close() disconnects it. Calls made before the socket
 * first connected wait for it, until an attempt fails to reach the host
 * (they then reject with LINK_DOWN saying why, and the first connection is
 * announced as a reconnect); calls made while it is down after that reject
 * with LINK_DOWN at once (the dialer greets again on 'reconnect'). socket.io
 * reconnects; the link's session reopens every subscription from the last
 * event id taken. A connection the host stops answering on (a call timed
 * out), breaks the protocol on (pages past its window) or ends without a
 * disconnect (a CONNECT_ERROR packet) is dropped by the link and dialed
 * again, backed off, so the dialer greets anew. A host that drops two
 * connections in a row within STEADY_MS of their connect is dialed backed
 * off, 2 s doubling to a minute (earlyDrop). Pass `maxPayload` to `io()`
 * (boundFrames): without it the link warns, and a host may send 100 MiB frames.
 *
 * @throws TypeError when `timeout` is not a positive number.
 * @example
 * import { io } from 'socket.io-client';
 * import { createSocketIoLink } from 'syncom/socket.io';
 * const frames = { websocket: { maxPayload: 16 * 2 ** 20 } };
 * const connect = (node) => createSocketIoLink(io(node.url, { auth: { token: node.token }, transports: ['websocket'], transportOptions: frames }));
 * const storage = await open({ path: 'data', sync: { connect } });
 */
export function createSocketIoLink(socket: ClientSocket, options: SocketIoLinkOptions = {}): SocketIoLink {
  const timeout = options.timeout ?? 30_000;
  if (!(timeout > 0)) throw new TypeError('timeout must be a positive number of milliseconds');
  return new SocketLink(socket, timeout);
}

/** The first redial after the host closed the connection with a refusal, and the longest. */
const REFUSED_REDIAL_MS = 1000;
const REFUSED_REDIAL_MAX_MS = 5 * 60_000;

/** The refusal backoff's delay after `n` drops before: a second (or socket.io's delay, if longer), doubling up to five minutes. */
const backedOff = (base: number, n: number): number => Math.min(REFUSED_REDIAL_MAX_MS, Math.max(REFUSED_REDIAL_MS, base) * 2 ** n);

class SocketLink implements SocketIoLink {
  private readonly session = new LinkSession({ closed: () => this.shutdown() });
  private refusal: SyncomError | undefined;
  private waiters = new Set<Waiter>();
  private readonly subs = new Map<string, SocketIoFeed>();
  private feedCount = 0;
  private redial?: ReturnType<typeof setTimeout>;
  /** What the host said as it closed this connection (an `exception` just before the drop), until the drop. */
  private closing: SyncomError | undefined;
  /** Connections the host closed with a refusal since a call was last answered: the redial backs off on them. */
  private refusals = 0;
  /**
   * Connections dropped on a frame past maxPayload (or on one of ours past the host's bound) since a page of ops last came:
   * their hello is answered, so the refusal count starts over at each, and
   * the same frame (a record that large) would come again every second.
   */
  private oversized = 0;
  /** When the live connection came (Date.now()), and the drops in a row that came within STEADY_MS of theirs. */
  private connectedAt = 0;
  private early = 0;
  /** Calls waiting for the first connection were failed by an attempt that did not reach the host (unreached). */
  private missedFirst = false;
  /** The host's offer of cumulative page acks on this connection (its hello answer). */
  private offer: PageAcksOffer | undefined;
  private readonly handlers: [string, (...args: never[]) => void][] = [
    ['connect', () => this.onConnect()],
    ['disconnect', (reason: string, details?: unknown) => this.onDisconnect(reason, details)],
    ['connect_error', (error: Error & { data?: unknown }) => this.onConnectError(error)],
    [SYNCOM_EVENTS.page, (m: PageMessage, ack: (a: unknown) => void) => this.onPage(m, ack)],
    [SYNCOM_EVENTS.feedError, (m: FeedErrorMessage) => this.subs.get(m?.sub)?.hostError(m.sub, fromWireError(m.error))],
    [SYNCOM_EVENTS.feedEnd, (m: { sub: string }) => this.subs.get(m?.sub)?.hostEnd(m.sub)],
    [SYNCOM_EVENTS.exception, (m: { error?: { code?: unknown } }) => this.onException(m)],
  ];

  /** The manager ran out of reconnection attempts: nothing will connect unless the app redials. */
  private readonly onGaveUp = () => this.release((this.refusal = linkDown()));

  private readonly port: FeedPort;

  constructor(private readonly socket: ClientSocket, private readonly timeout: number) {
    const session = this.session;
    this.port = {
      get answered() {
        return session.answered;
      },
      forget: (feed) => session.forget(feed),
      connected: () => this.connected,
      send: (event, payload) => this.send(event, payload),
      bind: (sub, feed) => void (feed ? this.subs.set(sub, feed) : this.subs.delete(sub)),
      pageAcks: () => this.offer,
      abandon: (error) => this.cycle(error),
    };
    for (const [event, handler] of this.handlers) socket.on(event, handler as Listener);
    socket.io.on('reconnect_failed', this.onGaveUp);
    const opening = !socket.connected && !socket.active;
    boundFrames(socket, opening);
    boundDecoder(socket);
    if (socket.connected) session.begin(connection);
    else if (opening) socket.connect();
  }

  get connected(): boolean {
    return this.session.live !== undefined && this.socket.connected;
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
    } catch (error) {
      feed.fail(error);
      return { unsubscribe: () => feed.unsubscribe() };
    }
    return this.session.subscribe(feed);
  }

  stream(id: string): AsyncIterable<Uint8Array> {
    return pullChunks(id, {
      connection: () => (this.connected ? this.session.live : undefined),
      send: (event, payload) => this.send(event, payload),
    });
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

  /** The session closed: waiting calls fail, the socket goes, and so do the link's handlers on it. */
  private shutdown(): void {
    clearTimeout(this.redial);
    this.release(linkDown());
    this.socket.disconnect();
    for (const [event, handler] of this.handlers) this.socket.off(event, handler as Listener);
    this.socket.io.off('reconnect_failed', this.onGaveUp);
  }

  /** Resolves once the socket is up: at once, or at its first connect; LINK_DOWN or the host's refusal otherwise. */
  private ready(): Promise<void> {
    if (this.connected) return Promise.resolve();
    if (this.session.closed) return Promise.reject(linkDown());
    // A refused handshake stands until the next connection, after a drop too: the dialer reports why it is out.
    if (this.refusal) return Promise.reject(this.refusal);
    if (this.session.connections > 0) return Promise.reject(linkDown());
    return new Promise((resolve, reject) => this.waiters.add({ resolve, reject }));
  }

  /** One acknowledged message on the live connection; the answer's value, or a SyncomError (LINK_DOWN if the connection goes first). */
  private send(event: string, payload: unknown): Promise<unknown> {
    const conn = this.connected ? this.session.live : undefined;
    if (!conn) return Promise.reject(linkDown());
    const answered = new Promise<unknown>((resolve, reject) => {
      const buffer = this.socket.sendBuffer;
      const queued = buffer?.length ?? 0;
      this.socket.timeout(this.timeout).emit(event, payload, (err: Error | null, answer: unknown) => {
        if (err) return this.timedOut(conn, reject);
        if (event === SYNCOM_EVENTS.hello) this.offer = pageAcksOf(answer);
        try {
          resolve(unwrapAnswer(answer));
        } catch (e) {
          return reject(e);
        }
        // An answered call may be the hello that a resumed feed waits for.
        this.refusals = 0;
        this.session.answer();
      });
      // socket.io-client keeps a message it could not send (its engine's ping expired: the socket says connected,
      // the transport is dead) for the next connection, and its ack timer with it: a buffered ack outlived close()
      // and held the process open, and the message went out after the dialer's next hello, a call long failed.
      // Unbuffered, socket.io fails its ack at the drop that follows (or at close()), which clears that timer.
      if (buffer && buffer === this.socket.sendBuffer && buffer.length > queued) buffer.splice(queued);
    });
    return conn.guard(answered);
  }

  /**
   * A call got no answer in time. The socket may stay up for good while the
   * host answers nothing more (overloaded, or hostile), and the dialer greets
   * only on a new connection: a connected socket is cycled, after the caller
   * got LINK_TIMEOUT (the microtask runs behind the guard's own rejection).
   */
  private timedOut(conn: LinkConnection, reject: (e: SyncomError) => void): void {
    if (!this.socket.connected) return reject(linkDown());
    const error = linkTimeout(this.timeout);
    reject(error);
    queueMicrotask(() => conn === this.session.live && this.cycle(error));
  }

  /**
   * Drops the live connection from this side (its calls fail with LINK_DOWN,
   * its feeds suspend) and dials again after the refusal backoff, which
   * grows until a call is answered: the host is not to be waited on there.
   */
  private cycle(error: SyncomError): void {
    if (this.session.closed || !this.session.live) return;
    const early = this.dropAge();
    const delay = Math.max(this.redialDelay(error), early?.redialIn ?? 0);
    this.session.dropped(early);
    // A socket socket.io-client destroyed on a CONNECT_ERROR still says connected: connect() would do nothing.
    this.socket.disconnect();
    this.redialIn(delay);
  }

  private redialIn(ms: number): void {
    clearTimeout(this.redial);
    this.redial = setTimeout(() => this.session.closed || this.socket.connect(), ms);
    this.redial.unref?.();
  }

  private onConnect(): void {
    if (this.session.closed) return void this.socket.disconnect();
    const refusedBefore = this.refusal !== undefined || this.missedFirst;
    this.refusal = undefined;
    this.missedFirst = false;
    this.closing = undefined;
    this.connectedAt = Date.now();
    // A new connection may reach another host: it acks every page until its hello answer says otherwise.
    this.offer = undefined;
    const waiting = this.takeWaiters();
    this.session.connected(connection, refusedBefore);
    for (const w of waiting) w.resolve();
  }

  private onDisconnect(reason: string, details?: unknown): void {
    // A frame past a bound, either way: it comes again at every connection.
    const tooLarge = reason === 'transport error' ? frameTooLarge(this.socket, details)
      : reason === 'transport close' ? messageRefused(details)
        : reason === 'parse error' ? frameRefused(details) : undefined;
    const closing = reason === 'io server disconnect' ? this.closing : tooLarge;
    this.closing = undefined;
    // Ours (close(), cycle()) leave no live connection by now: only the host's or the network's drops count.
    const early = this.session.live ? this.dropAge() : undefined;
    // The calls in the air fail with the host's reason when it gave one (MESSAGE_TOO_LARGE), not a bare LINK_DOWN.
    this.session.dropped(closing ?? early);
    if (this.session.closed) return;
    const wait = early?.redialIn ?? 0;
    // socket.io does not come back by itself after the server dropped the socket; a sync link does.
    if (reason === 'io server disconnect') return this.redialIn(Math.max(wait, this.redialDelay(closing)));
    // A frame past maxPayload (a record that large), or one of ours past the host's bound (a hello with many
    // streams), comes again at every connection, and so does a host that drops each soon after it came:
    // socket.io's own quick redial (its backoff starts over at each connect) is stopped (disconnect() inside
    // its close skips it) and the refusal backoff, or the early drops' wait, taken instead.
    if (tooLarge || wait) {
      this.socket.disconnect();
      this.redialIn(Math.max(wait, tooLarge ? backedOff(this.socket.io.reconnectionDelay(), this.oversized++) : 0));
    }
  }

  /** One more drop of the live connection: early (within STEADY_MS of its connect) counts on, a later one starts over. */
  private dropAge(): EarlyDrop | undefined {
    this.early = Date.now() - this.connectedAt < STEADY_MS ? this.early + 1 : 0;
    return earlyDrop(this.early, this.socket.io.reconnectionDelay());
  }

  /**
   * socket.io's delay after a plain drop. After a refusal that closed the
   * connection the same hello would be refused again: the delay doubles from
   * a second up to five minutes, until a call is answered.
   */
  private redialDelay(closing: SyncomError | undefined): number {
    const base = this.socket.io.reconnectionDelay();
    if (!closing) return base;
    return backedOff(base, this.refusals++);
  }

  /** The host's notice for a message it refused without an answer; one that closes the connection comes just before the drop. */
  private onException(m: { error?: { code?: unknown } }): void {
    if (m?.error && typeof m.error.code === 'string') this.closing = fromWireError(m.error);
  }

  /**
   * A refused handshake (the gateway's session middleware, a hub's socket
   * cap per token) or a manager that gave up fails the waiting calls. On a
   * live connection (a host, or a man in the middle of ws://, sending
   * CONNECT_ERROR after the handshake) socket.io-client destroys the socket
   * without a 'disconnect' and never reconnects it: a drop, redialed with
   * the refusal backoff. socket.io-client does not retry a refused handshake
   * either, and the refusal may pass (a slot of the token freed: the hub
   * counts a socket a blip cut off until its ping times out), so the link
   * dials again, backed off; until then calls fail with the refusal.
   */
  private onConnectError(error: Error & { data?: unknown }): void {
    if (this.socket.active && this.socket.io.reconnection()) return this.unreached(error);
    const data = error.data as { code?: unknown } | undefined;
    const refusal = data && typeof data.code === 'string' ? fromWireError({ message: error.message, ...data }) : linkDown();
    if (this.session.live) return this.cycle(refusal);
    this.refusal = refusal;
    this.release(refusal);
    if (!this.session.closed) this.redialIn(this.redialDelay(refusal));
  }

  /**
   * An attempt that did not reach the host (refused at TCP, a DNS failure, a
   * proxy's error), socket.io retrying: the calls waiting for the first
   * connection fail LINK_DOWN, saying why, so the dialer's peers() shows it
   * (lastError) rather than nothing while the host stays out of reach; the
   * connection that gets through is then announced as a reconnect, and the
   * dialer greets on it. Calls made meanwhile wait for it again.
   */
  private unreached(error: Error): void {
    if (this.session.connections > 0 || this.waiters.size === 0) return;
    this.missedFirst = true;
    this.release(new SyncomError('LINK_DOWN', `cannot reach the host: ${attemptFailure(error)}; retrying`, { cause: error }));
  }

  private onPage(m: PageMessage, ack: (answer: unknown) => void): void {
    // A page of ops got through (a bootstrap notice, which comes before the snapshot, does not count).
    if (Array.isArray((m?.value as { ops?: unknown } | undefined)?.ops)) this.oversized = 0;
    const reply = typeof ack === 'function' ? ack : noop;
    const feed = typeof m?.sub === 'string' ? this.subs.get(m.sub) : undefined;
    if (!feed) return reply({ ok: true, value: null });
    feed.page(m.sub, m.value, typeof m.eventId === 'string' ? m.eventId : undefined, reply, m.more === true);
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

/** A socket's connection n: its context is the host's, on the far side; this one only marks the connection. */
const connection = (n: number) => new LinkConnection({ connection: n });

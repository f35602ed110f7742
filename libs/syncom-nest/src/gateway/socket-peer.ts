import { SyncomError, type HostUnit, type Subscription } from 'syncom';
import type { Socket } from 'socket.io';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import type { SyncomSocketContext } from '../syncom-options.interface';
import { measureFrames } from './frame-size';
import { PageMessage } from './page-message';
import { PeerStreams } from './peer-streams';
import { toWireError } from './syncom-refusal';

/** The room of a scope's subscribers: `server.in(scopeRoom('Doc')).fetchSockets()`. */
export function scopeRoom(scope: string): string {
  return `syncom:${scope}`;
}

const gone = () => new SyncomError('LINK_DOWN', 'the socket disconnected');
const noSession = () => new SyncomError('HELLO_REQUIRED', 'no current hello on this connection: greet again', { status: 428 });

/** Ends a unit's session on a context: the engine's endSession where the unit has one, else what a closed link does. */
function endUnitSession(unit: HostUnit, context: object): void {
  const u = unit as HostUnit & { endSession?: (context: object) => void };
  if (typeof u.endSession === 'function') u.endSession(context);
  else u.disconnect(context);
}

/**
 * What the gateway keeps per socket: the context the host unit keys its
 * session on (one per socket, so a reconnect must greet again, HOST-21), the
 * changes feeds by the client's sub id, the snapshot streams being pulled, and
 * the page acks awaited. Kept in a WeakMap rather than socket.data, which a
 * cluster adapter serializes; socket.data.syncom holds only `{ node, scopes }`.
 */
export class SocketPeer {
  /** What the unit and authorize see for this socket. */
  readonly context: SyncomSocketContext;
  /** The unit this socket's session lives in, once the gateway took the connection. */
  unit?: HostUnit;
  /** The snapshot streams this socket is pulling. */
  readonly streams = new PeerStreams();
  private readonly feeds = new Map<string, Subscription>();
  private readonly waiting = new Set<(error: SyncomError) => void>();
  private ended = false;

  constructor(readonly socket: Socket) {
    this.context = { socket };
    measureFrames(socket);
  }

  /** Whether the socket went away. */
  get closed(): boolean {
    return this.ended;
  }

  /** How many changes feeds are open. */
  get feedCount(): number {
    return this.feeds.size;
  }

  /** hello succeeded: the node id the limits guard keys its bucket on, and the scopes the rooms follow. */
  greet(node: string, scopes: string[]): void {
    this.context.node = node;
    this.context.scopes = scopes;
    (this.socket.data as Record<string, unknown>).syncom = { node, scopes };
  }

  /** Whether a hello succeeded on this socket and its session stands. */
  get greeted(): boolean {
    return this.context.node !== undefined;
  }

  /**
   * Whether someone known sent what arrives on this socket: its handshake passed authorize
   * (access 'session'), or a hello succeeded. Only then is a message held to the full bounds
   * rather than the pre-authentication ones: an honest hello of a node that knows many
   * origins is larger than what an unknown socket may make the gateway parse.
   */
  get authenticated(): boolean {
    return this.context.session !== undefined || this.greeted;
  }

  /**
   * Ends the socket's session, as every hello does before it is judged
   * (HOST-21): a refused re-hello must not leave the earlier grant in place.
   * Its feeds end, each subscriber told 428 HELLO_REQUIRED so it greets
   * again; its snapshot streams and rooms go; the unit forgets the session;
   * and until a hello succeeds the socket is held to the pre-authentication
   * bounds.
   */
  endSession(): void {
    for (const sub of [...this.feeds.keys()]) {
      if (this.dropFeed(sub) && !this.ended) this.socket.emit(SYNCOM_EVENTS.feedError, { sub, error: toWireError(noSession()) });
    }
    this.streams.close();
    delete this.context.node;
    delete this.context.scopes;
    delete (this.socket.data as Record<string, unknown>).syncom;
    if (this.unit) endUnitSession(this.unit, this.context);
    this.sessionEnded?.();
  }

  /** Called when the session ends (the gateway puts the socket's frames back under the pre-auth bound). */
  sessionEnded?: () => void;

  /** Keeps a feed under the client's sub id, ending one it replaces (and the feed itself if the socket is gone). */
  addFeed(sub: string, feed: Subscription): void {
    this.dropFeed(sub);
    if (this.ended) return feed.unsubscribe();
    this.feeds.set(sub, feed);
  }

  /** Ends the feed `sub` (if it is still `only`, when given); the rooms go with the last one. False when there was none to end. */
  dropFeed(sub: string, only?: Subscription): boolean {
    const feed = this.feeds.get(sub);
    if (!feed || (only && feed !== only)) return false;
    this.feeds.delete(sub);
    feed.unsubscribe();
    if (this.feeds.size === 0) for (const room of this.rooms()) void this.socket.leave(room);
    return true;
  }

  /** Whether `feed` is still the socket's feed `sub` (no unsubscribe, re-hello or end took it meanwhile). */
  holdsFeed(sub: string, feed: Subscription): boolean {
    return !this.ended && this.feeds.get(sub) === feed;
  }

  /** A subscriber joins `syncom:<scope>` for each scope its session carries. */
  joinRooms(): void {
    void this.socket.join(this.rooms());
  }

  /**
   * Emits `event` and waits for the client's ack, at most `ms` from when
   * `after` settled (default: from now). A page behind others in the send
   * window is given its time once the page before it was acked, since the
   * client takes pages one by one.
   * @throws SyncomError ACK_TIMEOUT after `ms`, LINK_DOWN when the socket goes first.
   */
  ask(event: string, payload: unknown, ms: number, after?: Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(gone());
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.waiting.delete(fail);
        fn();
      };
      const fail = (error: SyncomError) => settle(() => reject(error));
      const arm = () => {
        if (settled) return;
        timer = setTimeout(() => fail(new SyncomError('ACK_TIMEOUT', `no ack within ${ms} ms`, { status: 408 })), ms);
        timer.unref?.();
      };
      if (after) void after.then(arm, arm);
      else arm();
      this.waiting.add(fail);
      const answered = (answer: unknown) => settle(() => resolve(answer));
      // A page goes pre-encoded where it can: one encoding for every socket sending it.
      if (!(payload instanceof PageMessage && payload.sendOn(this.socket, event, answered))) this.socket.emit(event, payload, answered);
    });
  }

  /** The socket is gone: feeds, streams and awaited acks end, and the unit forgets the session. */
  close(unit: HostUnit): void {
    if (this.ended) return;
    this.ended = true;
    for (const fail of [...this.waiting]) fail(gone());
    for (const sub of [...this.feeds.keys()]) this.dropFeed(sub);
    this.streams.close();
    unit.disconnect(this.context);
  }

  private rooms(): string[] {
    return (this.context.scopes ?? []).map(scopeRoom);
  }
}

const peers = new WeakMap<Socket, SocketPeer>();

/** The socket's peer state, made on first use (the handshake middleware or the connection). */
export function peerOf(socket: Socket): SocketPeer {
  let peer = peers.get(socket);
  if (!peer) {
    peer = new SocketPeer(socket);
    peers.set(socket, peer);
  }
  return peer;
}

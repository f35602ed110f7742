import { SyncomError, type HostUnit, type Subscription } from 'syncom';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import type { ChangesDto } from './feed.dto';
import { PageMessage } from './page-message';
import type { SocketPeer } from './socket-peer';
import { toWireError } from './syncom-refusal';

/** Changes feeds one socket may hold open at once. */
export const MAX_FEEDS_PER_SOCKET = 16;

/** What opening a feed needs besides the envelope. */
export interface FeedOptions {
  unit: HostUnit;
  /** How long a page waits for the subscriber's ack before the feed ends. */
  ackTimeout: number;
}

/** The unit refuses a subscription in a microtask; a macrotask later it has, if it will. */
const afterRefusals = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How one page is sent: its ack's timeout, counted from the ack of the page before (`after`), and the feed it belongs to. */
interface PageOptions {
  ackTimeout: number;
  after: Promise<unknown>;
  feed(): Subscription | undefined;
}

/**
 * Sends one page and resolves with the subscriber's ack: the unit's feed
 * keeps at most its send window of pages out unacknowledged, and a full
 * window stops it reading until an ack comes. Without an ack in
 * time (from the previous page's ack: the client takes them one by one) the
 * feed ends and the client is told ACK_TIMEOUT (408), once per feed
 * however many of its pages were out; its link resumes from the last page it
 * took. Never rejects: the unit does not await every page it sends (a
 * bootstrap notice), and an ended feed or a closed socket stops it anyway.
 */
async function sendPage(peer: SocketPeer, sub: string, page: { value: unknown; eventId?: string }, o: PageOptions): Promise<void> {
  try {
    await peer.ask(SYNCOM_EVENTS.page, new PageMessage(sub, page.value, page.eventId), o.ackTimeout, o.after);
  } catch (error) {
    if ((error as SyncomError).code !== 'ACK_TIMEOUT' || peer.closed) return;
    const feed = o.feed();
    if (!feed || !peer.dropFeed(sub, feed)) return;
    peer.socket.emit(SYNCOM_EVENTS.feedError, { sub, error: toWireError(error) });
  }
}

/**
 * Opens the changes feed `envelope.sub` for a socket (PROTO-6): pages go
 * out as acknowledged `changes:data` messages with their event id, a later
 * refusal or failure as `changes:error`, the end as `changes:end`. A refusal
 * the unit gives at once (428 before hello, 403 SCOPES) rejects, for the ack.
 * A feed that opened joins the socket to its scopes' rooms.
 * @throws SyncomError 429 TOO_MANY_FEEDS beyond MAX_FEEDS_PER_SOCKET, or the unit's refusal.
 */
export async function openFeed(peer: SocketPeer, envelope: ChangesDto, o: FeedOptions): Promise<void> {
  const sub = envelope.sub;
  peer.dropFeed(sub);
  if (peer.feedCount >= MAX_FEEDS_PER_SOCKET) {
    throw new SyncomError('TOO_MANY_FEEDS', `at most ${MAX_FEEDS_PER_SOCKET} changes feeds per socket`, { status: 429 });
  }
  let opened = false;
  let early: unknown;
  let feed: Subscription | undefined;
  let previous: Promise<unknown> = Promise.resolve();
  const signal = (event: string, payload: object) => {
    if (feed) peer.dropFeed(sub, feed);
    if (!peer.closed) peer.socket.emit(event, { sub, ...payload });
  };
  feed = o.unit.subscribe('changes', envelope.args ?? {}, peer.context, {
    lastEventId: envelope.lastEventId,
    onData: (value, eventId) => {
      const sent = sendPage(peer, sub, { value, eventId }, { ackTimeout: o.ackTimeout, after: previous, feed: () => feed });
      previous = sent;
      return sent;
    },
    onError: (error) => (opened ? signal(SYNCOM_EVENTS.feedError, { error: toWireError(error) }) : (early ??= error)),
    onEnd: () => signal(SYNCOM_EVENTS.feedEnd, {}),
  });
  peer.addFeed(sub, feed);
  await afterRefusals();
  opened = true;
  if (early !== undefined) {
    peer.dropFeed(sub, feed);
    throw early;
  }
  if (!peer.closed) peer.joinRooms();
}

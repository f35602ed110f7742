import { SyncomError, type HostUnit, type Subscription } from 'syncom';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import type { ChangesDto } from './feed.dto';
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

/**
 * Sends one page and waits for the subscriber's ack: the unit's feed reads
 * no further until then (backpressure). Without an ack in time the feed ends
 * and the client is told ACK_TIMEOUT (408); its link resumes from the last
 * page it took. Never rejects: the unit does not await every page it sends
 * (a bootstrap notice), and an ended feed or a closed socket stops it anyway.
 */
async function sendPage(peer: SocketPeer, sub: string, page: { value: unknown; eventId?: string }, ackTimeout: number): Promise<void> {
  try {
    await peer.ask(SYNCOM_EVENTS.page, { sub, ...page }, ackTimeout);
  } catch (error) {
    if ((error as SyncomError).code !== 'ACK_TIMEOUT' || peer.closed) return;
    peer.socket.emit(SYNCOM_EVENTS.feedError, { sub, error: toWireError(error) });
    peer.dropFeed(sub);
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
  const signal = (event: string, payload: object) => {
    if (feed) peer.dropFeed(sub, feed);
    if (!peer.closed) peer.socket.emit(event, { sub, ...payload });
  };
  feed = o.unit.subscribe('changes', envelope.args ?? {}, peer.context, {
    lastEventId: envelope.lastEventId,
    onData: (value, eventId) => sendPage(peer, sub, { value, eventId }, o.ackTimeout),
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

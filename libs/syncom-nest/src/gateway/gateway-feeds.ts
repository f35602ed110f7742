import { Logger } from '@nestjs/common';
import { SyncomError, type HostUnit, type Subscription } from 'syncom';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import type { ChangesDto } from './feed.dto';
import { type AwaitedCount, PageAcks } from './page-acks';
import { emitWithId, forgetAck, PageMessage } from './page-message';
import type { SocketPeer } from './socket-peer';
import { toWireError } from './syncom-refusal';
import { thrownText } from '../thrown-text';

const feedLogger = new Logger('SyncomGateway');

/**
 * A live feed's failure as the subscriber is told it: the host's own (5xx) is logged here, as the exception
 * filter logs a message's, since the wire's text of a storage failure leaves out what names the store's files.
 */
function loggedWireError(error: unknown, sub: string) {
  const wire = toWireError(error);
  if (wire.status >= 500) feedLogger.error(`feed ${JSON.stringify(sub)} failed: ${wire.code}`, thrownText(error));
  return wire;
}

/** Changes feeds one socket may hold open at once where the gateway's maxFeedsPerConnection is not given (the unit's own default, 8, then refuses first). */
export const MAX_FEEDS_PER_SOCKET = 16;

/** What opening a feed needs besides the envelope. */
export interface FeedOptions {
  unit: HostUnit;
  /** How long a page waits for the subscriber's ack before the feed ends. */
  ackTimeout: number;
  /** Feeds one socket may hold: the unit's maxFeedsPerConnection when the gateway gave one, so the gateway never bounds below the unit. */
  maxFeeds?: number;
}

/** The unit refuses a subscription in a microtask; a macrotask later it has, if it will. */
const afterRefusals = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The pages each socket has out, awaiting their acks, over all its feeds. */
const awaited = new WeakMap<SocketPeer, AwaitedCount>();

/** How many changes pages sent on this socket await their acks (what the gateway holds for it; for tests). */
export function pagesAwaited(peer: SocketPeer): number {
  return awaited.get(peer)?.pages ?? 0;
}

/**
 * Writes one page on the socket with `ack` as its ack callback: pre-encoded
 * where it can be (one encoding for every socket sending it), else through
 * socket.emit; returns the ack id when known. A socket already gone counts
 * as answered: the feed ends with it.
 */
function sendPage(peer: SocketPeer, page: PageMessage, ack: () => void): number | undefined {
  if (peer.closed) return void ack();
  return page.sendOn(peer.socket, SYNCOM_EVENTS.page, ack) ?? emitWithId(peer.socket, SYNCOM_EVENTS.page, page, ack);
}

/**
 * The acks of one feed's pages: the unit's feed keeps at most its send
 * window of pages out unacknowledged, and a full window stops it reading
 * until an ack comes. An ack answers its page and every earlier one of the
 * feed (cumulative: a client may ack only the latest page it took). Without
 * an ack in time (counted from the last ack: the client takes pages in
 * order) the feed ends and the client is told ACK_TIMEOUT (408), once per
 * feed however many of its pages were out; its link resumes from the last
 * page it took.
 */
function feedAcks(peer: SocketPeer, sub: string, ms: number, feed: () => Subscription | undefined): PageAcks {
  let count = awaited.get(peer);
  if (!count) awaited.set(peer, (count = { pages: 0 }));
  return new PageAcks(ms, () => {
    const live = feed();
    if (peer.closed || !live || !peer.dropFeed(sub, live)) return;
    const error = new SyncomError('ACK_TIMEOUT', `no ack within ${ms} ms`, { status: 408 });
    peer.socket.emit(SYNCOM_EVENTS.feedError, { sub, error: toWireError(error) });
  }, count, (id) => forgetAck(peer.socket, id));
}

/**
 * Opens the changes feed `envelope.sub` for a socket (PROTO-6): pages go
 * out as acknowledged `changes:data` messages with their event id, a later
 * refusal or failure as `changes:error`, the end as `changes:end`. A refusal
 * the unit gives at once (428 before hello, 403 SCOPES) rejects, for the ack.
 * A feed that opened, and is still the socket's when the unit's refusals are past, joins the socket to its
 * scopes' rooms.
 * @throws SyncomError 429 TOO_MANY_FEEDS beyond maxFeeds, or the unit's refusal.
 */
export async function openFeed(peer: SocketPeer, envelope: ChangesDto, o: FeedOptions): Promise<void> {
  const sub = envelope.sub;
  peer.dropFeed(sub);
  const max = o.maxFeeds ?? MAX_FEEDS_PER_SOCKET;
  if (peer.feedCount >= max) {
    throw new SyncomError('TOO_MANY_FEEDS', `at most ${max} changes feeds per socket`, { status: 429 });
  }
  let opened = false;
  let early: unknown;
  let feed: Subscription | undefined;
  const acks = feedAcks(peer, sub, o.ackTimeout, () => feed);
  const signal = (event: string, payload: object) => {
    if (feed) peer.dropFeed(sub, feed);
    if (!peer.closed) peer.socket.emit(event, { sub, ...payload });
  };
  const unitFeed = o.unit.subscribe('changes', envelope.args ?? {}, peer.context, {
    lastEventId: envelope.lastEventId,
    // Never rejects: the unit does not await every page it sends (a bootstrap notice), and an ended feed or a closed socket stops it anyway.
    onData: (value, eventId, more) => {
      const sent = acks.page((ack) => sendPage(peer, new PageMessage(sub, value, eventId, more === true), ack));
      // A page without an event id is a bootstrap notice, the feed's last: the unit's subscription is over, and a
      // dialer opens its next feed under a new sub id without unsubscribing this one. Kept, it held a feed slot
      // and the socket's rooms until the socket left (test/gateway/bootstrap-notice.e2e-spec.ts).
      if (eventId === undefined && feed) peer.dropFeed(sub, feed);
      return sent;
    },
    onError: (error) => (opened ? signal(SYNCOM_EVENTS.feedError, { error: loggedWireError(error, sub) }) : (early ??= error)),
    onEnd: () => signal(SYNCOM_EVENTS.feedEnd, {}),
  });
  // Ending the feed lets go of its pages out: nothing waits on a subscriber that is gone.
  feed = { unsubscribe: () => (unitFeed.unsubscribe(), acks.close()) };
  peer.addFeed(sub, feed);
  await afterRefusals();
  opened = true;
  if (early !== undefined) {
    peer.dropFeed(sub, feed);
    throw early;
  }
  // Only a feed that is still the socket's: a hello in that macrotask ended it (and the rooms it would have
  // joined) and greeted with other scopes, which joined now would hold the socket in rooms no feed of it reads.
  if (peer.holdsFeed(sub, feed)) peer.joinRooms();
}

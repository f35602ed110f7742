import type { Socket } from 'socket.io';
import type { PageAcksOffer, SyncomAnswer } from '../link/socket-io-protocol';
import { canForgetAcks } from './page-message';

/** The unit's maxInFlightFrames when the options leave it out (frames.ts, DEFAULT_MAX_IN_FLIGHT_FRAMES). */
const UNIT_WINDOW = 16;

/**
 * The hello answer with the gateway's offer of cumulative page acks
 * (PROTOCOL-SOCKETIO.md, "Page acks"): a dialer that reads it may ack only
 * the latest page it took. Made only where the socket's ack callbacks can be
 * dropped by id (socket.io's internals as 4.8 has them): a page an ack
 * covered must not leave its callback behind for the life of the socket.
 */
export function withPageAcks<T>(answer: SyncomAnswer<T>, socket: Socket, o: { maxInFlightFrames?: number; ackTimeout: number }): SyncomAnswer<T> {
  if (!answer.ok || !canForgetAcks(socket)) return answer;
  const pageAcks: PageAcksOffer = { window: o.maxInFlightFrames ?? UNIT_WINDOW, ackTimeout: o.ackTimeout };
  return { ...answer, pageAcks };
}

import type { Socket } from 'socket.io';
import { SYNCOM_EVENTS, type SyncomAnswer } from '../link/socket-io-protocol';

/** What a client may send the gateway (the rest of SYNCOM_EVENTS go the other way). */
const SERVED = [SYNCOM_EVENTS.hello, SYNCOM_EVENTS.push, SYNCOM_EVENTS.snapshot, SYNCOM_EVENTS.reconcile, SYNCOM_EVENTS.records,
  SYNCOM_EVENTS.changes, SYNCOM_EVENTS.unsubscribe, SYNCOM_EVENTS.chunk].join(', ');

/** The most of an event's name an answer quotes. */
const MAX_QUOTED = 64;

/**
 * Answers an event that nothing on the socket handles (no handler of this gateway nor of another gateway
 * of the app on the namespace), when it came with an ack: 404 UNKNOWN_METHOD rather than no answer, for
 * which a client (a misspelt procedure, another protocol's client) waited out its own timeout at every call.
 * The socket's catch-all listener (`socket.onAny(answerUnknownEvent)`), run with the socket as `this` before
 * socket.io hands the event to its handlers: one function for every socket, no closure held per peer.
 */
export function answerUnknownEvent(this: Socket, event: unknown, ...args: unknown[]): void {
  const ack = args.at(-1);
  if (typeof ack !== 'function' || typeof event !== 'string' || this.listenerCount(event) > 0) return;
  const message = `${JSON.stringify(event.slice(0, MAX_QUOTED))} is no syncom message: the gateway serves ${SERVED}`;
  const answer: SyncomAnswer = { ok: false, error: { code: 'UNKNOWN_METHOD', status: 404, message } };
  ack(answer);
}

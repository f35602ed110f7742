import { errorFromWire, SyncomError } from '../errors';

/**
 * The socket.io event names of the syncom protocol (syncom-nest's PROTOCOL-SOCKETIO.md).
 * Dialer → host: hello, push, snapshot, reconcile, records, changes, unsubscribe, chunk, each
 * acknowledged. Host → dialer: a changes page (acknowledged: backpressure; cumulatively where the
 * hello's answer offers `pageAcks`),
 * a feed's error and end, and `exception` for a message that came without
 * an ack to answer on.
 */
export const SYNCOM_EVENTS = {
  hello: 'hello',
  push: 'push',
  snapshot: 'snapshot',
  reconcile: 'reconcile',
  records: 'records',
  changes: 'changes',
  unsubscribe: 'unsubscribe',
  chunk: 'chunk',
  page: 'changes:data',
  feedError: 'changes:error',
  feedEnd: 'changes:end',
  exception: 'exception',
} as const;

/** What a refusal carries on the wire: the engine's code, the host's status, a message for people. */
export interface WireError {
  code: string;
  status: number;
  message?: string;
  /** On 426 INCOMPATIBLE: the wire versions the host speaks. */
  versions?: number[];
  /** On 401 UNPROVEN: the challenge to sign and greet again with (proveNodes). */
  challenge?: string;
}

/**
 * What a host that takes cumulative page acks says beside its hello answer
 * (`pageAcks` of the answer, not of its value): the ack of a changes page
 * answers every earlier page of that feed, so a dialer may ack only the
 * latest page it took. `window` is the host's maxInFlightFrames, `ackTimeout`
 * how long (ms) it waits from its last ack for the next. A host without it
 * wants every page acked.
 */
export interface PageAcksOffer {
  window: number;
  ackTimeout: number;
}

/** Every acknowledged message is answered with one of these. */
export type SyncomAnswer<T = unknown> = { ok: true; value: T; pageAcks?: PageAcksOffer } | { ok: false; error: WireError };

/** A changes page as the host sends it; the ack tells the host the subscriber took it. */
export interface PageMessage {
  sub: string;
  eventId?: string;
  value: unknown;
  /** The host sends the feed's next page without waiting for this one's ack (a host that offers pageAcks may say so). */
  more?: boolean;
}

/** A feed's refusal or failure after it was opened. */
export interface FeedErrorMessage {
  sub: string;
  error: WireError;
}

/** One pulled chunk of a streamed snapshot page. */
export type ChunkAnswer = { done: true } | { done: false; chunk: Uint8Array };

/** The answer to a message that went through. */
export function answerOk<T>(value: T): SyncomAnswer<T> {
  return { ok: true, value };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;

/**
 * The SyncomError a refusal on the wire stands for, with its code, status and
 * message; REMOTE_ERROR (the host's string in `remoteCode`) for a code none of ERROR_CODES.
 */
export function fromWireError(error: unknown): SyncomError {
  return errorFromWire(error, (code) => `the host refused: ${code}`);
}

/**
 * The value of an answer.
 * @throws SyncomError with the host's code and status for a refusal, BAD_ANSWER for anything not shaped as an answer.
 */
export function unwrapAnswer(answer: unknown): unknown {
  if (!isObject(answer) || typeof answer.ok !== 'boolean') {
    throw new SyncomError('BAD_ANSWER', 'not a syncom answer: is the url a syncom gateway?');
  }
  if (answer.ok) return answer.value;
  throw fromWireError(answer.error);
}

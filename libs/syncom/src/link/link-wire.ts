import { errorFromWire, SyncomError } from '../errors';

/** Traffic counted by a memory link. Bytes are JSON lengths (stream chunks: their byte length). */
export interface LinkStats {
  /** call() invocations, refused ones included. */
  calls: number;
  /** Calls lost to the drop fault (rejected with LINK_TIMEOUT). */
  callsDropped: number;
  /** Calls run twice at the host by the duplicate fault. */
  callsDuplicated: number;
  /** Pages handed to subscribers, duplicates included. */
  pagesDelivered: number;
  pagesDropped: number;
  pagesDuplicated: number;
  /** Dialer -> host: call and subscribe arguments. */
  bytesOut: number;
  /** Host -> dialer: answers, pages and stream chunks. */
  bytesIn: number;
}

/** Fresh zero counts. */
export function emptyStats(): LinkStats {
  return { calls: 0, callsDropped: 0, callsDuplicated: 0, pagesDelivered: 0, pagesDropped: 0, pagesDuplicated: 0, bytesOut: 0, bytesIn: 0 };
}

/**
 * A value as a wire carries it: JSON text; a top-level undefined becomes null.
 * @throws TypeError for what JSON cannot carry (a cycle, a BigInt).
 */
export function toWire(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The value back from its JSON text: a copy sharing nothing with the sender's. */
export function fromWire(json: string): unknown {
  return JSON.parse(json) as unknown;
}

/**
 * The far side's error as it reaches this side: a new SyncomError with the
 * same code, status and message; REMOTE_ERROR where its code is none of
 * ERROR_CODES (the far side's string, cut short, stays in `remoteCode`).
 */
export function wireError(error: unknown): SyncomError {
  return errorFromWire(error, () => String(error));
}

/** The link is cut or closed. */
export function linkDown(): SyncomError {
  return new SyncomError('LINK_DOWN', 'The link is down; calls fail until it reconnects');
}

/** A call whose request or answer was lost. */
export function linkTimeout(): SyncomError {
  return new SyncomError('LINK_TIMEOUT', 'No answer; the host may or may not have run the call — retry');
}

/** Runs a listener or callback; what it throws or rejects with cannot break the link. */
export function safely(fn: () => unknown): void {
  try {
    const result = fn();
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // A listener's failure is its own (the link contract has no error channel for it).
  }
}

/** fn() as a promise: a synchronous throw becomes a rejection. */
export function invoke<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}

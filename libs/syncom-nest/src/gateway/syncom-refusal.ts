import { HttpException } from '@nestjs/common';
import { WsException } from '@nestjs/websockets';
import { errorCodeInfo, isSyncomError, isSyncomErrorCode, type SyncomError, type SyncomErrorCode } from 'syncom';
import type { WireError } from '../link/socket-io-protocol';

/**
 * A refusal thrown by a guard or a pipe: a WsException whose error is the
 * wire's `{ code, status, message }` (HttpException would reach a socket
 * client as "Internal server error"). A refusal below 500 is an answer, not
 * a fault: it carries no stack, which nothing reads (the filter logs the
 * stacks of 5xx only) and which costs more to capture than the check that
 * refused (tens of microseconds under a deep stack), malformed message after message.
 * `code` is one of ERROR_CODES, and `status` its status there (a test checks the literals).
 */
export function wsRefusal(code: SyncomErrorCode, status: number, message: string): WsException {
  if (status >= 500) return new WsException({ code, status, message });
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new WsException({ code, status, message });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;

function fromWsException(e: WsException): WireError {
  const error = e.getError();
  if (isObject(error) && typeof error.code === 'string') {
    const status = typeof error.status === 'number' ? error.status : 400;
    return { code: error.code, status, message: typeof error.message === 'string' ? error.message : error.code };
  }
  // A guard that returned false: Nest throws WsException('Forbidden resource').
  return { code: 'FORBIDDEN', status: 403, message: typeof error === 'string' ? error : 'refused' };
}

/** A SyncomError's own status, else its code's status in ERROR_CODES, else 500. */
function statusOf(e: SyncomError): number {
  if (typeof e.status === 'number') return e.status;
  return (isSyncomErrorCode(e.code) ? errorCodeInfo(e.code).status : undefined) ?? 500;
}

/**
 * Whether a SyncomError is the host's own storage failing (IO_ERROR, UNPERSISTED, STORE_DAMAGED, ...: a
 * 5xx of the 'storage' group): its message names the store's files (`EROFS ... '/srv/hub/log/open/231.json'`),
 * which is the host's to log, not a peer's to read.
 */
function isHostStorageFailure(e: SyncomError, status: number): boolean {
  return status >= 500 && isSyncomErrorCode(e.code) && errorCodeInfo(e.code).group === 'storage';
}

/**
 * What any thrown value becomes on the wire: a SyncomError keeps its code
 * and status (its code's listed status without one, else 500), a WsException
 * its payload, an HttpException its status; anything else is INTERNAL 500
 * with no detail (it is logged). A host's storage failure keeps its code
 * with a message of no detail: the filter logs the engine's.
 */
export function toWireError(e: unknown): WireError {
  if (e instanceof WsException) return fromWsException(e);
  if (isSyncomError(e)) {
    const status = statusOf(e);
    const message = isHostStorageFailure(e, status) ? 'the host failed to store or read this: its log has the cause'
      // The host app's beforeApply threw: its error's text is the app's (a database's refusal, a url), for the host's log, which the filter writes.
      : e.code === 'PAGE_FAILED' ? "the host's beforeApply refused this page (it threw): the host's log has why" : e.message;
    const wire: WireError = { code: e.code, status, message };
    // A 426 names the versions the host speaks: the dialer reports them.
    if (Array.isArray(e.versions)) wire.versions = (e.versions as unknown[]).filter((v): v is number => Number.isSafeInteger(v));
    // A 401 UNPROVEN carries the challenge the dialer signs and greets again with (proveNodes).
    if (typeof e.challenge === 'string') wire.challenge = e.challenge;
    return wire;
  }
  if (e instanceof HttpException) return { code: e.getStatus() === 400 ? 'BAD_REQUEST' : 'HTTP_ERROR', status: e.getStatus(), message: e.message };
  return { code: 'INTERNAL', status: 500, message: 'the host failed to handle this message' };
}

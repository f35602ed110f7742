import { type ArgumentsHost, Catch, type ExceptionFilter, HttpStatus, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { SyncomError } from 'syncom';

/** HTTP statuses for the codes a write or read of an HTTP handler meets that are the caller's or passing; anything else is a 500. */
export const SYNCOM_HTTP_STATUS: Readonly<Record<string, number>> = {
  NOT_FOUND: HttpStatus.NOT_FOUND,
  KIND_CLASH: HttpStatus.CONFLICT,
  NOT_SEALABLE: HttpStatus.CONFLICT,
  PURGED: HttpStatus.GONE,
  INVALID_ARGUMENT: HttpStatus.BAD_REQUEST,
  OP_INVALID: HttpStatus.BAD_REQUEST,
  CLOSED: HttpStatus.SERVICE_UNAVAILABLE,
  SYNC_TIMEOUT: HttpStatus.GATEWAY_TIMEOUT,
};

/** The part of an Express response (json) or a Fastify reply (send) this filter uses. */
type HttpResponse = { status(code: number): { json?(body: unknown): void; send?(body: unknown): void } };

/**
 * For an app's HTTP controllers: a SyncomError a handler lets through becomes
 * a JSON answer with its stable code and a status (SYNCOM_HTTP_STATUS: a
 * missing record 404, a kind clash 409 naming the right call, a purged one
 * 410), where Nest alone answers every one 500 "Internal server error". A
 * code mapped to no status (IO_ERROR, UNPERSISTED, ...) is the server's: a
 * 500 whose body has its code, while its message, which may name the store's
 * files, goes to the log. Express and Fastify alike (the response's status
 * and json, or send).
 *
 * @example
 * app.useGlobalFilters(new SyncomHttpFilter());
 */
@Catch(SyncomError)
export class SyncomHttpFilter implements ExceptionFilter {
  private readonly log = new Logger('SyncomHttpFilter');

  catch(error: SyncomError, host: ArgumentsHost): void {
    const status = SYNCOM_HTTP_STATUS[error.code] ?? HttpStatus.INTERNAL_SERVER_ERROR;
    // A SYNC_TIMEOUT's message names the hub and quotes its last refusal, text the hub chose: the log's, not the caller's.
    const serverSide = status === HttpStatus.INTERNAL_SERVER_ERROR || error.code === 'SYNC_TIMEOUT';
    if (serverSide) this.log.error(`${error.code}: ${error.message}`);
    const message = status === HttpStatus.INTERNAL_SERVER_ERROR ? 'the storage failed; the server log has its message'
      : error.code === 'SYNC_TIMEOUT' ? 'not in sync with the hub in time; the server log has why' : error.message;
    const body = { statusCode: status, error: STATUS_CODES[status], code: error.code, message };
    const response = host.switchToHttp().getResponse<HttpResponse>().status(status);
    if (typeof response.json === 'function') response.json(body);
    else response.send?.(body);
  }
}

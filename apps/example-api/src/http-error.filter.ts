import { type ArgumentsHost, Catch } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { STATUS_CODES } from 'node:http';

/** The part of express's response this filter uses. */
type HttpResponse = { status(code: number): { json(body: unknown): void } };

/**
 * The 4xx status of an http-errors error meant for the client (express's body
 * parser throws them: 413 for a body past its limit, 400 for JSON that does not
 * parse), or undefined for anything else.
 */
function clientErrorStatus(exception: unknown): number | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { status, expose } = exception as { status?: unknown; expose?: unknown };
  const isClient = typeof status === 'number' && status >= 400 && status < 500;
  return isClient && expose === true ? status : undefined;
}

/**
 * Answers the body parser's errors in the shape of Nest's own
 * (`{ statusCode, error, message }`): Nest's default passes them on without
 * `error`. Everything else goes to Nest's default filter.
 */
@Catch()
export class HttpErrorFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    const status = clientErrorStatus(exception);
    if (status === undefined) return super.catch(exception, host);
    const message = exception instanceof Error ? exception.message : STATUS_CODES[status];
    host.switchToHttp().getResponse<HttpResponse>().status(status).json({ statusCode: status, error: STATUS_CODES[status], message });
  }
}

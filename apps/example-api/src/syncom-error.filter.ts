import { type ArgumentsHost, Catch, type ExceptionFilter, HttpStatus, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { SyncomError } from 'syncom';

/** HTTP statuses for the storage's error codes; anything else is a 500. */
const STATUS: Record<string, number> = {
  NOT_FOUND: HttpStatus.NOT_FOUND,
  KIND_CLASH: HttpStatus.CONFLICT,
  PURGED: HttpStatus.GONE,
  INVALID_ARGUMENT: HttpStatus.BAD_REQUEST,
  OP_INVALID: HttpStatus.BAD_REQUEST,
  CLOSED: HttpStatus.SERVICE_UNAVAILABLE,
};

/** The part of express's response this filter uses. */
type HttpResponse = { status(code: number): { json(body: unknown): void } };

/**
 * A SyncomError from a write becomes a JSON answer with its stable code (a
 * kind clash: 409, naming the right call). A code mapped to no status (a 500:
 * IO_ERROR, UNPERSISTED, ...) is the server's: the client gets its code, the
 * log gets its message, which may name the store's files.
 */
@Catch(SyncomError)
export class SyncomErrorFilter implements ExceptionFilter {
  private readonly log = new Logger('SyncomErrorFilter');

  catch(error: SyncomError, host: ArgumentsHost): void {
    const status = STATUS[error.code] ?? HttpStatus.INTERNAL_SERVER_ERROR;
    if (status === HttpStatus.INTERNAL_SERVER_ERROR) this.log.error(`${error.code}: ${error.message}`);
    const message = status === HttpStatus.INTERNAL_SERVER_ERROR ? 'the storage failed; the server log has its message' : error.message;
    host.switchToHttp().getResponse<HttpResponse>().status(status).json({ statusCode: status, error: STATUS_CODES[status], code: error.code, message });
  }
}

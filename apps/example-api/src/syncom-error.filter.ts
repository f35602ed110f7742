import { type ArgumentsHost, Catch, type ExceptionFilter, HttpStatus } from '@nestjs/common';
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

/** A SyncomError from a write becomes a JSON answer with its stable code (a kind clash: 409, naming the right call). */
@Catch(SyncomError)
export class SyncomErrorFilter implements ExceptionFilter {
  catch(error: SyncomError, host: ArgumentsHost): void {
    const status = STATUS[error.code] ?? HttpStatus.INTERNAL_SERVER_ERROR;
    host.switchToHttp().getResponse<HttpResponse>().status(status).json({ statusCode: status, error: STATUS_CODES[status], code: error.code, message: error.message });
  }
}

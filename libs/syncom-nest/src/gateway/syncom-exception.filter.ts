import { type ArgumentsHost, Catch, Logger, type WsExceptionFilter } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { SYNCOM_EVENTS, type SyncomAnswer } from '../link/socket-io-protocol';
import { toWireError } from './syncom-refusal';

/**
 * The gateway's one exception filter: a SyncomError, a guard's or the pipe's
 * WsException, or anything else becomes `{ ok: false, error: { code, status,
 * message } }` on the message's ack. It calls the ack itself: Nest 11 emits a
 * guard's WsException as an `exception` event and never answers the ack, so
 * the dialer's call would only time out. A message sent without an ack gets
 * the answer as an `exception` event instead. Never throws.
 */
@Catch()
export class SyncomExceptionFilter implements WsExceptionFilter {
  private readonly logger = new Logger('SyncomGateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const error = toWireError(exception);
    const ws = host.switchToWs();
    const socket = ws.getClient<Socket | undefined>();
    const what = `${String(ws.getPattern())} from socket ${socket?.id ?? '?'}`;
    if (error.status >= 500) this.logger.error(`failed ${what}: ${error.code}`, exception instanceof Error ? exception.stack : String(exception));
    else this.logger.warn(`refused ${what}: ${error.status} ${error.code}`);
    const answer: SyncomAnswer = { ok: false, error };
    try {
      const ack = host.getArgs().find((arg): arg is (a: SyncomAnswer) => void => typeof arg === 'function');
      if (ack) ack(answer);
      else socket?.emit(SYNCOM_EVENTS.exception, answer);
    } catch (e) {
      this.logger.error(`could not answer ${what}`, e instanceof Error ? e.stack : String(e));
    }
  }
}

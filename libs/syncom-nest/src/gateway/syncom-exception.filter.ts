import { type ArgumentsHost, Catch, Inject, Logger, Optional, type WsExceptionFilter } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { DEFAULT_CONNECTION_IN_FLIGHT_BYTES } from 'syncom';
import { SYNCOM_EVENTS, type SyncomAnswer } from '../link/socket-io-protocol';
import { SYNCOM_GATEWAY_OPTIONS } from '../syncom.constants';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import { SampledLog } from './sampled-log';
import { toWireError } from './syncom-refusal';
import { dropConnection, type EngineOutput, unreadBytes } from './unread-bytes';
import { thrownText } from '../thrown-text';

/**
 * The gateway's one exception filter: a SyncomError, a guard's or the pipe's
 * WsException, or anything else becomes `{ ok: false, error: { code, status,
 * message } }` on the message's ack. It calls the ack itself: Nest 11 emits a
 * guard's WsException as an `exception` event and never answers the ack, so
 * the dialer's call would only time out. A message sent without an ack gets
 * the answer as an `exception` event instead. A socket that holds more than
 * maxConnectionInFlightBytes and REFUSALS_UNREAD_BYTES of answers unread is
 * closed rather than sent one more: a refusal is queued whether or not the
 * peer reads it, and a client that never read had the host queue refusals
 * (READ_BACKLOG's among them) until it ran out of memory
 * (test/hostile/unread-output.e2e-spec.ts). Never throws.
 */
/** Refusals a socket may leave unread past its frame budget (a thousand or so) before it is closed instead. */
export const REFUSALS_UNREAD_BYTES = 1 << 20;

@Catch()
export class SyncomExceptionFilter implements WsExceptionFilter {
  private readonly logger = new Logger('SyncomGateway');
  private readonly log = new SampledLog(this.logger);
  private readonly perConnection: number;

  constructor(@Optional() @Inject(SYNCOM_GATEWAY_OPTIONS) options?: SyncomGatewayOptions) {
    this.perConnection = (options?.maxConnectionInFlightBytes ?? DEFAULT_CONNECTION_IN_FLIGHT_BYTES) + REFUSALS_UNREAD_BYTES;
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    try {
      this.answer(exception, host);
    } catch (e) {
      // Thrown here, an error reaches no handler under Nest's IoAdapter and ends the process.
      this.logger.error('the exception filter failed', thrownText(e));
    }
  }

  private answer(exception: unknown, host: ArgumentsHost): void {
    const error = toWireError(exception);
    const ws = host.switchToWs();
    const socket = ws.getClient<Socket | undefined>();
    const pattern = String(ws.getPattern());
    const what = `${pattern} from socket ${socket?.id ?? '?'}`;
    if (error.status >= 500) this.logger.error(`failed ${what}: ${error.code}`, thrownText(exception));
    // 428 is HOST-21's way back, not a fault: a dialer whose host restarted reopens its feeds before it greets again.
    else this.log.write(error.status === 428 ? 'log' : 'warn', `${pattern} ${error.code}`, `refused ${what}: ${error.status} ${error.code}`);
    if (socket?.conn && unreadBytes(socket) > this.perConnection) {
      this.log.warn('unread', `closed socket ${socket.id}: it reads none of its answers (${unreadBytes(socket)} bytes unread)`);
      dropConnection(socket.conn as unknown as EngineOutput);
      return;
    }
    const answer: SyncomAnswer = { ok: false, error };
    try {
      const ack = host.getArgs().find((arg): arg is (a: SyncomAnswer) => void => typeof arg === 'function');
      if (ack) ack(answer);
      else socket?.emit(SYNCOM_EVENTS.exception, answer);
    } catch (e) {
      this.logger.error(`could not answer ${what}`, thrownText(e));
    }
  }
}

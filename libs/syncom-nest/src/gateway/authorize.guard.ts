import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { checkHello, type Hello } from 'syncom';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import { SYNCOM_GATEWAY_OPTIONS } from '../syncom.constants';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import { peerOf } from './socket-peer';
import { wsRefusal } from './syncom-refusal';

/**
 * Gates `hello` with the gateway's `authorize(context, hello)` (HOST-3): an
 * answer of false, or a throw, refuses it with 401 UNAUTHORIZED. Without
 * authorize every hello passes; other messages are not this guard's.
 */
@Injectable()
export class SyncomAuthorizeGuard implements CanActivate {
  constructor(@Inject(SYNCOM_GATEWAY_OPTIONS) private readonly options: SyncomGatewayOptions) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const ws = context.switchToWs();
    const authorize = this.options.authorize;
    if (ws.getPattern() !== SYNCOM_EVENTS.hello || !authorize) return true;
    let hello: Hello;
    try {
      hello = checkHello(ws.getData());
    } catch {
      // Guards run before pipes: a malformed hello is the pipe's to refuse (400).
      return true;
    }
    let ok = false;
    try {
      ok = (await authorize(peerOf(ws.getClient<Socket>()).context, hello)) !== false;
    } catch {
      ok = false;
    }
    if (ok) return true;
    throw wsRefusal('UNAUTHORIZED', 401, 'authorize refused the hello: check the token registered for this host');
  }
}

import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import { SYNCOM_GATEWAY_OPTIONS } from '../syncom.constants';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import { breachOf, type EnvelopeBounds, MAX_ENVELOPE_DEPTH } from './envelope-bounds';
import { preAuthBounds, preAuthBytesOf } from './pre-auth';
import { peerOf } from './socket-peer';
import { wsRefusal } from './syncom-refusal';

/**
 * The session line of the gateway. A hello first ends the socket's earlier
 * session, whatever its own outcome (a refused re-hello must not leave the
 * old grant in place, HOST-21). A message from a socket without a session
 * (a hello included) is held to the pre-authentication bounds before any
 * envelope check reads it: at most a few thousand keys and items, counted
 * in one pass that stops at the bound (413 MESSAGE_TOO_LARGE), nesting at
 * most MAX_ENVELOPE_DEPTH (400). Its bytes were bounded before socket.io
 * parsed it (PreAuthGate). The hello itself is read once, by the hello
 * handler's pipe; the host unit runs `authorize` on it (after the proof of
 * its node id where the unit asks for one: the gateway's `unit`).
 */
@Injectable()
export class SyncomAuthorizeGuard implements CanActivate {
  private readonly bounds: EnvelopeBounds;

  constructor(@Inject(SYNCOM_GATEWAY_OPTIONS) options: SyncomGatewayOptions) {
    this.bounds = preAuthBounds(preAuthBytesOf(options.preAuthBytes));
  }

  canActivate(context: ExecutionContext): boolean {
    const ws = context.switchToWs();
    const peer = peerOf(ws.getClient<Socket>());
    if (ws.getPattern() === SYNCOM_EVENTS.hello) peer.endSession();
    if (peer.authenticated) return true;
    const breach = breachOf(ws.getData(), this.bounds);
    if (breach === 'depth') throw wsRefusal('BAD_REQUEST', 400, `the message nests deeper than ${MAX_ENVELOPE_DEPTH} levels`);
    if (breach === 'entries') {
      throw wsRefusal('MESSAGE_TOO_LARGE', 413, `before a hello succeeds a message may hold at most ${this.bounds.maxEntries} keys and items`);
    }
    return true;
  }
}

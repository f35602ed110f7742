import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { checkLimits, PeerBuckets, Storage } from 'syncom';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import { SYNCOM_GATEWAY_OPTIONS } from '../syncom.constants';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import { peerOf } from './socket-peer';
import { wsRefusal } from './syncom-refusal';

/**
 * The gateway's push limits (HOST-9..12), the engine's checkLimits over its
 * per-node token buckets: more ops than opsPerPush or more UTF-8 bytes than
 * bytesPerPush -> 413 OPS_PER_PUSH / BYTES_PER_PUSH; beyond opsPerSecond for
 * the peer's node id -> 429 OPS_PER_SECOND. A refusal is reported through
 * `storage.sync.limited()` (the `limited` event) and answered; the socket
 * stays open (HOST-13).
 */
@Injectable()
export class SyncomLimitsGuard implements CanActivate {
  private readonly buckets: PeerBuckets;

  constructor(
    @Inject(Storage) private readonly storage: Storage,
    @Inject(SYNCOM_GATEWAY_OPTIONS) private readonly options: SyncomGatewayOptions,
  ) {
    // The storage's clock, as the engine's own unit uses: a test clock drives the refill too.
    this.buckets = new PeerBuckets(options.limits?.opsPerSecond, () => this.storage.parts.clock.now());
  }

  canActivate(context: ExecutionContext): boolean {
    const ws = context.switchToWs();
    const limits = this.options.limits;
    if (!limits || ws.getPattern() !== SYNCOM_EVENTS.push) return true;
    const node = peerOf(ws.getClient<Socket>()).context.node;
    const ops = (ws.getData() as { ops?: unknown } | null)?.ops;
    // Before a hello the unit answers 428; a push without an ops array is the pipe's 400.
    if (node === undefined || !Array.isArray(ops)) return true;
    const refused = checkLimits(limits, ops, this.buckets.for(node));
    if (!refused) return true;
    this.storage.sync.limited(refused.code, node);
    throw wsRefusal(refused.code, refused.status ?? 413, refused.message);
  }
}

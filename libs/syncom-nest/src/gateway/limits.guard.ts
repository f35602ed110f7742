import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { checkLimits, type HostUnit, type Limits, PeerBuckets, Storage } from 'syncom';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import { SYNCOM_GATEWAY_OPTIONS } from '../syncom.constants';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import { surelyWithin } from './frame-size';
import { peerOf } from './socket-peer';
import { wsRefusal } from './syncom-refusal';

/** The key the unit established for the peer on `context` (SyncUnit.identityOf; another unit has none). */
function identityOf(unit: HostUnit | undefined, context: object): string | object | undefined {
  const u = unit as (HostUnit & { identityOf?: (context: object) => string | object | undefined }) | undefined;
  return typeof u?.identityOf === 'function' ? u.identityOf(context) : undefined;
}

/**
 * The gateway's push limits (HOST-9..12), the engine's checkLimits over its
 * token buckets: more ops than opsPerPush or more UTF-8 bytes than
 * bytesPerPush -> 413 OPS_PER_PUSH / BYTES_PER_PUSH; beyond opsPerSecond ->
 * 429 OPS_PER_SECOND, beyond purgesPerSecond -> 429 PURGES_PER_SECOND. A bucket is the peer's identity's (the engine's
 * limitKey), never the node id its hello claims: the key the unit established
 * at the socket's accepted hello (the identity an `authorize` named, else the
 * token it judged, else the session or the socket), read from the unit; a push
 * is only counted after such a hello (before, the unit answers 428). A refusal is reported through `storage.sync.limited()` (the
 * `limited` event) and answered; the socket stays open (HOST-13). The bytes
 * are JSON.stringify's of the ops; a push whose packet text is short enough
 * that no stringify of it can pass bytesPerPush is not stringified
 * (frame-size.ts), and any other is.
 */
@Injectable()
export class SyncomLimitsGuard implements CanActivate {
  private readonly buckets: PeerBuckets;
  private readonly purgeBuckets: PeerBuckets;
  /** The limits without bytesPerPush: a push whose packet bounds its bytes is checked against these. */
  private readonly countOnly?: Limits;

  constructor(
    @Inject(Storage) private readonly storage: Storage,
    @Inject(SYNCOM_GATEWAY_OPTIONS) private readonly options: SyncomGatewayOptions,
  ) {
    // The storage's clock, as the engine's own unit uses: a test clock drives the refill too.
    this.buckets = new PeerBuckets(options.limits?.opsPerSecond, () => this.storage.replica.now());
    this.purgeBuckets = new PeerBuckets(options.limits?.purgesPerSecond, () => this.storage.replica.now(), undefined, true);
    if (options.limits) this.countOnly = { ...options.limits, bytesPerPush: undefined };
  }

  canActivate(context: ExecutionContext): boolean {
    const ws = context.switchToWs();
    const limits = this.options.limits;
    const socketPeer = peerOf(ws.getClient<Socket>());
    const peer = socketPeer.context;
    if (!limits || ws.getPattern() !== SYNCOM_EVENTS.push) return true;
    const node = peer.node;
    const data: unknown = ws.getData();
    const ops = (data as { ops?: unknown } | null)?.ops;
    // Before a hello the unit answers 428; a push without an ops array is the pipe's 400.
    if (node === undefined || !Array.isArray(ops)) return true;
    const key = identityOf(socketPeer.unit, peer) ?? peer;
    const bytes = limits.bytesPerPush;
    const counted = bytes !== undefined && surelyWithin(data, bytes) ? this.countOnly : limits;
    const refused = checkLimits(counted, ops, this.buckets.for(key), this.purgeBuckets.for(key));
    if (!refused) return true;
    this.storage.sync.limited(refused.code, node);
    throw wsRefusal(refused.code, refused.status ?? 413, refused.message);
  }
}

import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { checkLimits, limitKey, type Limits, PeerBuckets, Storage } from 'syncom';
import { SYNCOM_EVENTS } from '../link/socket-io-protocol';
import { SYNCOM_GATEWAY_OPTIONS } from '../syncom.constants';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import { surelyWithin } from './frame-size';
import { peerOf } from './socket-peer';
import { wsRefusal } from './syncom-refusal';

/**
 * The gateway's push limits (HOST-9..12), the engine's checkLimits over its
 * token buckets: more ops than opsPerPush or more UTF-8 bytes than
 * bytesPerPush -> 413 OPS_PER_PUSH / BYTES_PER_PUSH; beyond opsPerSecond ->
 * 429 OPS_PER_SECOND, beyond purgesPerSecond -> 429 PURGES_PER_SECOND. A bucket is the peer's identity's (the engine's
 * limitKey), never the node id its hello claims: the identity an
 * `authorize` named (at the handshake or at the last hello), else the
 * handshake session's token, else the token of the socket's last hello when
 * an `authorize` is set (a push is only counted once that hello was accepted, hence
 * authorized: before, the unit answers 428), else the socket. A refusal is reported through `storage.sync.limited()` (the
 * `limited` event) and answered; the socket stays open (HOST-13). The bytes
 * are JSON.stringify's of the ops; a push whose packet text is short enough
 * that no stringify of it can pass bytesPerPush is not stringified
 * (frame-size.ts), and any other is.
 */
@Injectable()
export class SyncomLimitsGuard implements CanActivate {
  private readonly buckets: PeerBuckets;
  private readonly purgeBuckets: PeerBuckets;
  /** The token of each socket's last hello (it keys the bucket once that hello is accepted). */
  private readonly tokens = new WeakMap<object, string>();
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
    if (ws.getPattern() === SYNCOM_EVENTS.hello) this.noteToken(peer, ws.getData());
    if (!limits || ws.getPattern() !== SYNCOM_EVENTS.push) return true;
    const node = peer.node;
    const data: unknown = ws.getData();
    const ops = (data as { ops?: unknown } | null)?.ops;
    // Before a hello the unit answers 428; a push without an ops array is the pipe's 400.
    if (node === undefined || !Array.isArray(ops)) return true;
    const key = limitKey(peer, this.tokens.get(peer), this.options.authorize !== undefined, socketPeer.identity);
    const bytes = limits.bytesPerPush;
    const counted = bytes !== undefined && surelyWithin(data, bytes) ? this.countOnly : limits;
    const refused = checkLimits(counted, ops, this.buckets.for(key), this.purgeBuckets.for(key));
    if (!refused) return true;
    this.storage.sync.limited(refused.code, node);
    throw wsRefusal(refused.code, refused.status ?? 413, refused.message);
  }

  /** A hello's token is who the socket is, once the hello is accepted. */
  private noteToken(peer: object, hello: unknown): void {
    const token = (hello as { token?: unknown } | null)?.token;
    if (typeof token === 'string') this.tokens.set(peer, token);
    else this.tokens.delete(peer);
  }
}

import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';
import type { Socket } from 'socket.io';
import { DEFAULT_CONNECTION_IN_FLIGHT_BYTES, DEFAULT_MAX_IN_FLIGHT_BYTES, Storage } from 'syncom';
import { SYNCOM_GATEWAY_OPTIONS } from '../syncom.constants';
import type { SyncomGatewayOptions } from '../syncom-options.interface';
import { peerOf } from './socket-peer';
import { wsRefusal } from './syncom-refusal';
import { unreadBytes, unreadEverywhere } from './unread-bytes';

/** Calls whose answers may be large (a page, a vector, records) one socket may have in progress at once. */
export const MAX_CALLS_IN_PROGRESS = 4;

/** How long a sum of every socket's unread bytes is reused. */
const HOST_SUM_MS = 50;

const inProgress = new WeakMap<Socket, number>();

/**
 * Bounds what a socket that asks and never reads makes the host hold. An
 * answer is queued on the socket whether or not the peer reads it: 300
 * snapshot requests from a socket that had stopped reading queued 197 MB
 * of pages (test/hostile/slow-reader.e2e-spec.ts). A call whose answer may
 * be large (hello, snapshot, reconcile, records, chunk) is refused 429
 * READ_BACKLOG when its socket already has MAX_CALLS_IN_PROGRESS of them in
 * progress, or has answers unread and either they pass
 * maxConnectionInFlightBytes or every socket's together pass
 * maxInFlightBytes (the bounds feed pages are held to). A socket with
 * nothing unread always gets its call: an honest dialer asks for its next
 * page once it has read the last. A refusal of a greeted peer is counted
 * as the limits guard's are (the `limited` event and syncom.ops.limited).
 */
@Injectable()
export class SyncomUnreadInterceptor implements NestInterceptor {
  private readonly perConnection: number;
  private readonly perHost: number;
  private hostSum = { at: -Infinity, bytes: 0 };

  constructor(
    @Inject(Storage) private readonly storage: Storage,
    @Inject(SYNCOM_GATEWAY_OPTIONS) options: SyncomGatewayOptions,
  ) {
    this.perConnection = options.maxConnectionInFlightBytes ?? DEFAULT_CONNECTION_IN_FLIGHT_BYTES;
    this.perHost = options.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const socket = context.switchToWs().getClient<Socket>();
    const calls = inProgress.get(socket) ?? 0;
    if (calls >= MAX_CALLS_IN_PROGRESS) throw this.refused(socket, `${calls} calls are in progress on this connection`);
    const unread = unreadBytes(socket);
    if (unread > 0 && (unread > this.perConnection || this.everySocket(socket) > this.perHost)) {
      throw this.refused(socket, `${unread} bytes of answers wait unread on this connection`);
    }
    inProgress.set(socket, calls + 1);
    return next.handle().pipe(finalize(() => inProgress.set(socket, (inProgress.get(socket) ?? 1) - 1)));
  }

  private refused(socket: Socket, why: string): Error {
    const node = peerOf(socket).context.node;
    if (node !== undefined) this.storage.sync.limited('READ_BACKLOG', node);
    return wsRefusal('READ_BACKLOG', 429, `${why}: read the answers, then ask again`);
  }

  /**
   * Every socket's unread bytes in the namespace, a buffer shared by sockets counted once, summed at most every
   * HOST_SUM_MS from the counts kept as engine.io queues and flushes (unreadEverywhere, O(1) a connection). It
   * walked every packet each connection held: connections that read nothing hold up to 10,000 each, and one call
   * every 50 ms had the host walk them all (test/hostile/unread-sum-cost.spec.ts).
   */
  private everySocket(socket: Socket): number {
    const now = Date.now();
    if (now - this.hostSum.at < HOST_SUM_MS) return this.hostSum.bytes;
    const bytes = unreadEverywhere(socket.nsp.sockets.values());
    this.hostSum = { at: now, bytes };
    return bytes;
  }
}

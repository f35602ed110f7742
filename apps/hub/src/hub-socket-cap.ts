import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ModuleRef } from '@nestjs/core';
import type { Socket } from 'socket.io';
import { SampledLog, SyncomGateway } from 'syncom-nest';

type Next = (error?: Error) => void;

/** The handshake's token, as the socket.io link sends it (`auth: { token }`). */
function tokenOf(socket: Socket): string | undefined {
  const token = (socket.handshake.auth as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' ? token : undefined;
}

/** The refusal socket.io hands the client as connect_error; the link turns `data` into a SyncomError. */
function refusal(max: number): Error {
  const message = `this token already holds ${max} sockets at this hub (SYNCOM_SOCKETS_PER_TOKEN): close one first`;
  return Object.assign(new Error(message), { data: { code: 'SOCKETS_PER_TOKEN', status: 429, message } });
}

/**
 * A socket.io middleware that admits at most `max` sockets per handshake token
 * at once. A socket counts from its admission until it disconnects, or until
 * its connection closes when it never got to connect (socket.io drops a socket
 * whose client left during the handshake without a disconnect event).
 */
export function socketsPerToken(max: number, onRefused: (socket: Socket) => void): (socket: Socket, next: Next) => void {
  const held = new Map<string, Set<Socket>>();
  return (socket, next) => {
    const token = tokenOf(socket);
    // No token: the session middleware before this one decides (it refuses one when tokens are required).
    if (token === undefined || socket.conn.readyState !== 'open') return next();
    const sockets = held.get(token) ?? new Set<Socket>();
    if (sockets.size >= max) {
      onRefused(socket);
      return next(refusal(max));
    }
    sockets.add(socket);
    held.set(token, sockets);
    const release = () => {
      socket.conn.off('close', release);
      sockets.delete(socket);
      if (sockets.size === 0 && held.get(token) === sockets) held.delete(token);
    };
    socket.once('disconnect', release);
    socket.conn.once('close', release);
    next();
  };
}

/**
 * The socket cap (SYNCOM_SOCKETS_PER_TOKEN), added to the gateway's namespace
 * once it exists: at bootstrap, after the gateway's own session middleware,
 * so only sockets whose token passed authorize are counted. The count is this
 * hub process's: behind a load balancer each hub admits its own `max`.
 */
@Injectable()
export class HubSocketCap implements OnApplicationBootstrap {
  private readonly logger = new Logger('Hub');

  constructor(private readonly modules: ModuleRef, private readonly config: ConfigService) {}

  onApplicationBootstrap(): void {
    const max = this.config.get<number>('hub.limits.socketsPerToken') ?? 0;
    const server = this.modules.get(SyncomGateway, { strict: false }).server;
    if (max <= 0 || !server) return;
    // Sampled: a token holder is refused as fast as it opens handshakes, and a line each let it grow the log at will.
    const log = new SampledLog(this.logger);
    server.use(socketsPerToken(max, (s) => log.warn('sockets per token', `refused a socket from ${s.handshake.address}: its token holds ${max} sockets already`)));
  }
}

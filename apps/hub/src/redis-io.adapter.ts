import { Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createClient } from '@redis/client';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Server, ServerOptions } from 'socket.io';

/** Attempts at the first connection to Redis, 200 ms apart, before the hub gives up starting. */
const FIRST_ATTEMPTS = 5;

/**
 * Nest's IoAdapter with socket.io's Redis adapter (SYNCOM_REDIS_URL): every
 * server it creates shares rooms and fetchSockets() with the other hubs on
 * the same Redis, so `server.in('syncom:<scope>')` describes the cluster.
 * Redis carries no ops: hubs replicate by dialing each other (SYNCOM_PEERS).
 * Call connect() before app.listen(): the gateway's server is created then.
 *
 * @example
 * const adapter = new RedisIoAdapter(app);
 * await adapter.connect('redis://127.0.0.1:6379');
 * app.useWebSocketAdapter(adapter);
 */
export class RedisIoAdapter extends IoAdapter {
  private readonly logger = new Logger('Hub');
  private readonly clients: RedisClient[] = [];
  private adapter?: ReturnType<typeof createAdapter>;

  /**
   * Connect the publishing and the subscribing client.
   * @throws Error when Redis cannot be reached in five attempts (the hub must not start half clustered).
   */
  async connect(url: string): Promise<void> {
    const warn = (m: string) => this.logger.warn(m);
    const [pub, sub] = [redisClient(url, 'publisher', warn), redisClient(url, 'subscriber', warn)];
    this.clients.push(pub, sub);
    await Promise.all([pub.connect(), sub.connect()]);
    this.adapter = createAdapter(pub, sub);
    this.logger.log(`socket.io rooms span the hubs on ${safeUrl(url)}`);
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    if (!this.adapter) throw new TypeError('RedisIoAdapter: call connect() before the app listens');
    const server = super.createIOServer(port, options) as Server;
    server.adapter(this.adapter);
    return server;
  }

  /** Nest calls this after closing the servers: the Redis clients go with them. */
  override async dispose(): Promise<void> {
    const clients = this.clients.splice(0);
    // A client that gave up connecting is closed already; one still retrying is dropped at once.
    await Promise.all(clients.map(async (c) => (c.isReady ? c.close() : c.isOpen && c.destroy())));
  }
}

/** The url without its password, for logs. */
function safeUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** A client that reconnects for ever once it has connected, but fails a first connection after a few tries. */
function redisClient(url: string, role: string, warn: (message: string) => void) {
  let ready = false;
  const reconnectStrategy = (retries: number, cause: Error): number | Error => {
    if (ready) return Math.min(100 * 2 ** retries, 5000);
    return retries < FIRST_ATTEMPTS ? 200 : new Error(`cannot reach Redis at ${safeUrl(url)} (SYNCOM_REDIS_URL): ${cause.message}`);
  };
  const client = createClient({ url, socket: { reconnectStrategy } });
  client.on('ready', () => { ready = true; });
  // An 'error' event without a listener is thrown (EventEmitter): a Redis blip would take the hub down.
  client.on('error', (e: Error) => warn(`Redis ${role}: ${e.message}`));
  return client;
}

type RedisClient = ReturnType<typeof redisClient>;

import { Logger } from '@nestjs/common';
import { createClient } from '@redis/client';
import type { Server, ServerOptions } from 'socket.io';
import { loggedUrl, SyncomIoAdapter } from 'syncom-nest';
import { guardedAdapter, guardedPublisher, redisWatchdog, withTimeout } from './redis-guard';

/** Attempts at the first connection to Redis, 200 ms apart, before the hub gives up starting. */
const FIRST_ATTEMPTS = 5;
/** How long Redis may take to answer (connect and ready at start, a ping or a cluster request later), by default. */
export const REDIS_TIMEOUT = 5000;
/** Commands waiting on a Redis that does not answer, at most: beyond, publishes fail (and are counted) rather than grow memory. */
const QUEUE_MAX = 10_000;

/**
 * SyncomIoAdapter with socket.io's Redis adapter (SYNCOM_REDIS_URL): every
 * server it creates shares rooms and fetchSockets() with the other hubs on
 * the same Redis, so `server.in('syncom:<scope>')` describes the cluster.
 * Redis carries no ops: hubs replicate by dialing each other (SYNCOM_PEERS).
 * Call connect() before app.listen(): the gateway's server is created then.
 * A Redis that accepts connections but does not answer fails connect() after
 * `timeout` ms; one that stops answering later is reported once (and once
 * when it is back) and degrades only rooms across hubs (see redis-guard.ts).
 *
 * @example
 * const adapter = new RedisIoAdapter(app);
 * await adapter.connect('redis://127.0.0.1:6379');
 * app.useWebSocketAdapter(adapter);
 */
export class RedisIoAdapter extends SyncomIoAdapter {
  private readonly logger = new Logger('Hub');
  private readonly clients: RedisClient[] = [];
  private adapter?: ReturnType<typeof guardedAdapter>;
  private stopWatchdog?: () => void;
  private dropped = 0;
  private timeout = REDIS_TIMEOUT;

  /**
   * Connect the publishing and the subscribing client.
   * @throws Error when Redis cannot be reached in five attempts, or does not answer within `timeout` ms
   * (the hub must not start half clustered, nor hang).
   */
  async connect(url: string, timeout = REDIS_TIMEOUT): Promise<void> {
    this.timeout = timeout;
    const warn = (m: string) => this.logger.warn(m);
    const [pub, sub] = [redisClient(url, 'publisher', warn, timeout), redisClient(url, 'subscriber', warn, timeout)];
    this.clients.push(pub, sub);
    await withTimeout(Promise.all([pub.connect(), sub.connect()]), timeout,
      () => `Redis at ${safeUrl(url)} (SYNCOM_REDIS_URL) accepted the connection but did not answer within ${timeout} ms (stopped or overloaded?); set SYNCOM_REDIS_TIMEOUT to wait longer`);
    this.adapter = guardedAdapter(guardedPublisher(pub, (e) => this.publishFailed(e)), sub, { requestsTimeout: timeout });
    this.stopWatchdog = redisWatchdog(() => pub.ping(), {
      every: Math.max(100, Math.floor(timeout / 2)), timeout,
      stalled: () => warn(`Redis at ${safeUrl(url)} is not answering: rooms across hubs (fetchSockets, broadcasts to other hubs) wait or fail; replication between hubs goes on`),
      back: () => {
        this.logger.log(`Redis at ${safeUrl(url)} answers again${this.dropped > 0 ? `; ${this.dropped} publish(es) were dropped meanwhile` : ''}`);
        // Counted per stall: a count kept across stalls left the next stall's drops unsaid and its line counting the last one's.
        this.dropped = 0;
      },
    });
    this.logger.log(`socket.io rooms span the hubs on ${safeUrl(url)}`);
  }

  /** A publish the adapter made failed: counted, and said once per stall (the watchdog says when Redis is back). */
  private publishFailed(e: Error): void {
    if (this.dropped++ === 0) this.logger.warn(`Redis publish failed (${e.message}): broadcasts to other hubs are lost until Redis answers`);
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    if (!this.adapter) throw new TypeError('RedisIoAdapter: call connect() before the app listens');
    const server = super.createIOServer(port, options) as Server;
    server.adapter(this.adapter);
    return server;
  }

  /** Nest calls this after closing the servers: the Redis clients go with them. */
  override async dispose(): Promise<void> {
    this.stopWatchdog?.();
    const clients = this.clients.splice(0);
    // A client that gave up connecting is closed already; one still retrying is dropped at once.
    // close() waits for the answers to queued commands: a Redis that does not answer must not hold the shutdown.
    const close = (c: RedisClient) => withTimeout(c.close(), this.timeout, () => 'close timed out').catch(() => c.isOpen && c.destroy());
    await Promise.all(clients.map(async (c) => (c.isReady ? close(c) : c.isOpen && c.destroy())));
  }
}

/**
 * The url without its user info, query or fragment, for logs (loggedUrl, which parses it): a pattern over the
 * text had kept what followed an '@' inside the password (`redis://:pa55@w0rd@host` logged as `:***@w0rd@host`).
 */
function safeUrl(url: string): string {
  return loggedUrl(url);
}

/** A client that reconnects for ever once it has connected, but fails a first connection after a few tries. */
function redisClient(url: string, role: string, warn: (message: string) => void, timeout: number) {
  let ready = false;
  const reconnectStrategy = (retries: number, cause: Error): number | Error => {
    if (ready) return Math.min(100 * 2 ** retries, 5000);
    return retries < FIRST_ATTEMPTS ? 200 : new Error(`cannot reach Redis at ${safeUrl(url)} (SYNCOM_REDIS_URL): ${cause.message}`);
  };
  const client = createClient({ url, commandsQueueMaxLength: QUEUE_MAX, socket: { reconnectStrategy, connectTimeout: timeout } });
  client.on('ready', () => { ready = true; });
  // An 'error' event without a listener is thrown (EventEmitter): a Redis blip would take the hub down.
  client.on('error', (e: Error) => warn(`Redis ${role}: ${e.message}`));
  return client;
}

type RedisClient = ReturnType<typeof redisClient>;

import { RedisAdapter, type RedisAdapterOptions } from '@socket.io/redis-adapter';
import type { Server } from 'socket.io';

/** What `server.adapter()` takes: a class socket.io constructs with the namespace alone. */
export type AdapterClass = NonNullable<Parameters<Server['adapter']>[0]>;

/**
 * A Redis that accepts connections but never answers (a stopped or wedged
 * server) must neither hang the hub at start nor stall or crash it while it
 * runs. Replication between hubs never goes through Redis (they dial each
 * other), so only what socket.io's adapter does over Redis degrades: rooms
 * across hubs (fetchSockets() of other hubs, broadcasts to sockets on other
 * hubs) wait or fail until Redis answers again.
 */

/** `p`, or a rejection with `message` once `ms` pass first. */
export function withTimeout<T>(p: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(message())), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The publishing client as the adapter sees it: its publish() promises, which
 * the adapter never awaits, are caught here, since an unhandled rejection
 * (a full command queue, a dropped connection) would end the process.
 */
export function guardedPublisher<C extends object>(client: C, failed: (e: Error) => void): C {
  return new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      if (key !== 'publish' && key !== 'sPublish') return value.bind(target);
      return (...args: unknown[]) => {
        const p = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        p.catch(failed);
        return p;
      };
    },
  });
}

/**
 * socket.io's Redis adapter whose cluster-wide requests give up after
 * requestsTimeout even when Redis does not answer at all: the stock adapter
 * first awaits PUBSUB NUMSUB with no timeout, so fetchSockets() hung for as
 * long as Redis did.
 */
export function guardedAdapter(pub: object, sub: object, opts: Partial<RedisAdapterOptions> & { requestsTimeout: number }): AdapterClass {
  // socket.io constructs the adapter itself (`new Adapter(nsp)`): a class, not a factory.
  class GuardedRedisAdapter extends RedisAdapter {
    constructor(nsp: unknown) {
      super(nsp, pub, sub, opts);
    }

    override serverCount(): Promise<number> {
      return withTimeout(super.serverCount(), opts.requestsTimeout, () => `Redis did not answer within ${opts.requestsTimeout} ms (rooms across hubs are unavailable)`);
    }
  }
  return GuardedRedisAdapter as unknown as AdapterClass;
}

/**
 * Pings Redis every `every` ms; says once when it stops answering within
 * `timeout` and once when it answers again. The timer does not keep the
 * process alive. Returns the stop function.
 */
export function redisWatchdog(ping: () => Promise<unknown>, o: { every: number; timeout: number; stalled: () => void; back: () => void }): () => void {
  let down = false;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      await withTimeout(ping(), o.timeout, () => 'ping timed out');
      if (down) o.back();
      down = false;
    } catch {
      if (!down) o.stalled();
      down = true;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), o.every);
  timer.unref();
  return () => clearInterval(timer);
}

import type { INestApplication, LoggerService } from '@nestjs/common';
import { join } from 'node:path';
import { Storage } from 'syncom';
import { scopeRoom, SyncomGateway } from 'syncom-nest';
import { Apps, until } from '../../example-api/test/apps';
import { createHub } from '../src/create-hub';
import { freePorts } from '../../../scripts/free-port';
import { noteRedisSkip, type RedisServer, skipRedis, startRedis } from './redis-server';

noteRedisSkip('redis-stall.e2e-spec');

/**
 * A Redis that accepts connections but answers nothing (redis-server under
 * SIGSTOP). At start the hub hung for ever after "dependencies initialized";
 * it must fail within its Redis timeout, saying why. While it runs, only
 * rooms across hubs may degrade: replication goes hub to hub, not through Redis.
 */
(skipRedis ? describe.skip : describe)('apps/hub: a Redis that stops answering (hostile, e2e)', () => {
  const apps = new Apps();
  const running: INestApplication[] = [];
  let redis: RedisServer;
  beforeAll(async () => { redis = await startRedis(); });
  afterAll(async () => {
    redis.pause(false);
    for (const app of running) await app.close();
    await apps.stopAll();
    await redis.stop();
  });

  it('a stopped Redis at start: the hub fails within seconds, naming Redis and its timeout (main.ts then exits 1)', async () => {
    redis.pause(true);
    try {
      const t0 = Date.now();
      const start = createHub({ port: 0, host: '127.0.0.1', path: join(apps.dir, 'stalled-start'), tokens: ['t'], redisUrl: redis.url, redisTimeout: 1000 }, false);
      await expect(start).rejects.toThrow(/Redis at redis:\/\/127\.0\.0\.1:\d+ \(SYNCOM_REDIS_URL\) accepted the connection but did not answer within 1000 ms/);
      // Generous: a hang is what this guards against.
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      redis.pause(false);
    }
  });

  it('Redis stopped while two hubs run: writes still replicate, fetchSockets() across hubs fails in time, the stall is logged; all resumes with SIGCONT', async () => {
    let stalled!: () => void;
    const said = new Promise<void>((resolve) => { stalled = resolve; });
    const warn = (m: unknown) => { if (/is not answering: rooms across hubs/.test(String(m))) stalled(); };
    const logger: LoggerService = { log: () => undefined, error: () => undefined, warn };
    const ports = await freePorts(2);
    const urls = ports.map((p) => `http://127.0.0.1:${p}/syncom`);
    const hub = async (i: number) => {
      const app = await createHub({
        port: ports[i], host: '127.0.0.1', path: join(apps.dir, `h${i}`), tokens: ['t'], peers: [urls[1 - i]],
        io: { reconnectionDelay: 50, reconnectionDelayMax: 200 }, redisUrl: redis.url, redisTimeout: 500,
      }, logger);
      running.push(app);
      return app;
    };
    const [a, b] = [await hub(0), await hub(1)];
    const [sa, sb] = [a.get(Storage), b.get(Storage)];
    const linked = (s: Storage) => s.sync.peers().some((p) => p.connected && p.subscribed);
    await until(() => linked(sa) && linked(sb), [sa, sb]);
    const server = a.get(SyncomGateway).server!;
    await expect(server.in(scopeRoom('*')).fetchSockets()).resolves.toBeDefined();

    redis.pause(true);
    try {
      // A broadcast to the room publishes to Redis: it must neither throw nor block.
      server.to(scopeRoom('*')).emit('noop');
      const id = await sa.insert({ $type: 'Note', title: 'while Redis is stopped' });
      await until(() => sb.has(id), [sb]);
      await expect(server.in(scopeRoom('*')).fetchSockets()).rejects.toThrow(/did not answer within 500 ms/);
      await said;
    } finally {
      redis.pause(false);
    }
    const back = await sb.insert({ $type: 'Note', title: 'after SIGCONT' });
    await until(() => sa.has(back), [sa]);
    await expect(server.in(scopeRoom('*')).fetchSockets()).resolves.toBeDefined();
  });
});

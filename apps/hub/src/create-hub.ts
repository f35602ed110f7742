import type { INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { HubConfig } from './hub.config';
import { HubModule } from './hub.module';
import { RedisIoAdapter } from './redis-io.adapter';

/** The socket.io adapter: Redis-backed with config.redisUrl (connected before listen creates the server), else Nest's. */
async function ioAdapter(app: INestApplication, config: HubConfig): Promise<IoAdapter> {
  if (!config.redisUrl) return new IoAdapter(app);
  const adapter = new RedisIoAdapter(app);
  try {
    await adapter.connect(config.redisUrl);
  } catch (e) {
    await adapter.dispose();
    throw e;
  }
  return adapter;
}

/** Starts a hub listening on config.port (0: any free port); returns the app. */
export async function createHub(config: HubConfig, logger?: LoggerService | LogLevel[] | false): Promise<INestApplication> {
  const app = await NestFactory.create(HubModule.register(config), { logger: logger ?? ['log', 'warn', 'error'] });
  app.enableShutdownHooks();
  try {
    app.useWebSocketAdapter(await ioAdapter(app, config));
    await app.listen(config.port, config.host ?? '127.0.0.1');
  } catch (e) {
    // The storage is open by now: close it (and the Redis clients) rather than leak them.
    await app.close().catch(() => undefined);
    throw e;
  }
  return app;
}

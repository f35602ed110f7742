import type { INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { HubConfig } from './hub.config';
import { HubModule } from './hub.module';

/** Starts a hub listening on config.port (0: any free port); returns the app. */
export async function createHub(config: HubConfig, logger?: LoggerService | LogLevel[] | false): Promise<INestApplication> {
  const app = await NestFactory.create(HubModule.register(config), { logger: logger ?? ['log', 'warn', 'error'] });
  app.enableShutdownHooks();
  app.useWebSocketAdapter(new IoAdapter(app));
  await app.listen(config.port, config.host ?? '127.0.0.1');
  return app;
}

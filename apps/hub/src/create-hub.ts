import { ConsoleLogger, type INestApplication, Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SyncomIoAdapter } from 'syncom-nest';
import type { HubConfig } from './hub.config';
import { HubModule } from './hub.module';
import { hubSummary, hubWarnings } from './hub-summary';
import { RedisIoAdapter } from './redis-io.adapter';
import { defaultWebDir, serveWebApp, webAppLine } from './web-app';

/** The socket.io adapter: Redis-backed with config.redisUrl (connected before listen creates the server), else SyncomIoAdapter alone (syncom-nest: each handler a plain listener). */
async function ioAdapter(app: INestApplication, config: HubConfig): Promise<SyncomIoAdapter> {
  if (!config.redisUrl) return new SyncomIoAdapter(app);
  const adapter = new RedisIoAdapter(app);
  try {
    await adapter.connect(config.redisUrl, config.redisTimeout);
  } catch (e) {
    await adapter.dispose();
    throw e;
  }
  return adapter;
}

const LEVELS: LogLevel[] = ['log', 'warn', 'error'];

/**
 * The hub's logger: Nest's console lines, or with logFormat 'json' one JSON
 * object a line ({ level, pid, timestamp, message, context }), which a log
 * collector reads without parsing colours and columns.
 */
function hubLogger(config: HubConfig): LoggerService | LogLevel[] {
  return config.logFormat === 'json' ? new ConsoleLogger({ json: true, colors: false, compact: true, logLevels: LEVELS }) : LEVELS;
}

/**
 * Starts a hub listening on config.port (0: any free port); returns the app.
 * Logs a warning for each weakening choice (no tokens, signatures not
 * required), then, once it listens, its url, a summary of its settings and
 * where the web app is served (config.webDir, default apps/web/dist; false: none).
 */
export async function createHub(config: HubConfig, logger?: LoggerService | LogLevel[] | false): Promise<INestApplication> {
  // abortOnError false: a start that fails (the path LOCKED by another hub) rejects to the caller; Nest's default
  // exited the process from inside createHub, so an embedding app's own handling never ran (main.ts exits).
  const app = await NestFactory.create<NestExpressApplication>(HubModule.register(config), { logger: logger ?? hubLogger(config), abortOnError: false });
  const log = new Logger('Hub');
  for (const warning of hubWarnings(config)) log.warn(warning);
  app.enableShutdownHooks();
  // Express names itself in every answer (X-Powered-By) unless told not to: nothing a client needs.
  app.disable('x-powered-by');
  const webDir = config.webDir === false ? undefined : (config.webDir ?? defaultWebDir());
  if (webDir) serveWebApp(app, webDir);
  try {
    app.useWebSocketAdapter(await ioAdapter(app, config));
    await app.listen(config.port, config.host ?? '127.0.0.1');
  } catch (e) {
    // The storage is open by now: close it (and the Redis clients) rather than leak them.
    await app.close().catch(() => undefined);
    throw e;
  }
  const url = await app.getUrl();
  // getUrl() names 127.0.0.1 for a hub bound to every address: say which addresses it listens on.
  const bound = config.host ?? '127.0.0.1';
  log.log(`listening on ${url}${bound === '0.0.0.0' || bound === '::' ? ` (every address: ${bound})` : ''}`);
  for (const line of hubSummary(config, url)) log.log(line);
  if (webDir) log.log(webAppLine(webDir, url));
  return app;
}

import { ConsoleLogger, type INestApplication, Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SyncomIoAdapter } from 'syncom-nest';
import type { Server } from 'node:http';
import { type HubConfig, hubLimits } from './hub.config';
import { HubModule } from './hub.module';
import { allowedHosts, guardHosts } from './hub-hosts';
import { hubSummary, hubWarnings } from './hub-summary';
import { RedisIoAdapter } from './redis-io.adapter';
import { SyncomError } from 'syncom';
import { defaultWebDir, serveWebApp, WEB_DIR_HOLDS_DATA, webAppLine, webDirServesData } from './web-app';

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

/** Connections the HTTP server takes beyond the gateway's maxConnections, at least: /health, /metrics, the web app's files, handshakes under way. */
export const HTTP_HEADROOM = 64;
/** How long a client may take to send a request's headers, and the whole request, in ms. */
export const HTTP_HEADERS_TIMEOUT = 10_000;
export const HTTP_REQUEST_TIMEOUT = 30_000;

/**
 * Bounds the TCP connections the hub's HTTP server holds. SYNCOM_MAX_CONNECTIONS counts engine.io's connections
 * only: a client that opens TCP connections and sends part of a request's headers, or nothing, was held for
 * minutes, never counted, each a file descriptor (with ulimit -n 200, 180 of them left /health unanswered). The
 * server drops a connection past maxConnections and an eighth more (at least HTTP_HEADROOM) at once, and a
 * request whose headers take over 10 s.
 */
export function boundHttpServer(server: Pick<Server, 'maxConnections' | 'headersTimeout' | 'requestTimeout'>, maxConnections: number): void {
  if (maxConnections > 0) server.maxConnections = maxConnections + Math.max(HTTP_HEADROOM, Math.floor(maxConnections / 8));
  server.headersTimeout = HTTP_HEADERS_TIMEOUT;
  server.requestTimeout = HTTP_REQUEST_TIMEOUT;
}

/**
 * Starts a hub listening on config.port (0: any free port); returns the app.
 * Logs a warning for each weakening choice (no tokens, signatures not
 * required), then, once it listens, its url, a summary of its settings and
 * where the web app is served (config.webDir, default apps/web/dist; false: none).
 */
export async function createHub(config: HubConfig, logger?: LoggerService | LogLevel[] | false): Promise<INestApplication> {
  const webDir = config.webDir === false ? undefined : (config.webDir ?? defaultWebDir());
  // Before the storage opens (and writes its keys): the web folder is served to anyone.
  if (webDir && webDirServesData(webDir, config.path)) throw new SyncomError('HUB_CONFIG', `the web folder ${webDir} ${WEB_DIR_HOLDS_DATA}`, { variable: 'SYNCOM_WEB_DIR' });
  // abortOnError false: a start that fails (the path LOCKED by another hub) rejects to the caller; Nest's default
  // exited the process from inside createHub, so an embedding app's own handling never ran (main.ts exits).
  const app = await NestFactory.create<NestExpressApplication>(HubModule.register(config), { logger: logger ?? hubLogger(config), abortOnError: false });
  const log = new Logger('Hub');
  for (const warning of hubWarnings(config)) log.warn(warning);
  app.enableShutdownHooks();
  // Express names itself in every answer (X-Powered-By) unless told not to: nothing a client needs.
  app.disable('x-powered-by');
  if (webDir) serveWebApp(app, webDir);
  try {
    app.useWebSocketAdapter(await ioAdapter(app, config));
    boundHttpServer(app.getHttpServer() as Server, hubLimits(config).maxConnections);
    const hosts = allowedHosts(config);
    if (hosts) {
      // init attaches engine.io to the server: the Host check goes in front of it and express before anyone can connect.
      await app.init();
      guardHosts(app.getHttpServer() as Server, hosts);
    }
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

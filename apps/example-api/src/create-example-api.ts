import { type INestApplication, type LoggerService, type LogLevel, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SyncomHttpFilter } from 'syncom-nest';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import type { ExampleConfig } from './example.config';
import { allowedHostsOf, hostCheck } from './host-check';
import { HttpErrorFilter } from './http-error.filter';
import { verifyJsonDepth } from './json-depth';
import { jsonOnlyWrites } from './json-only';
import { parseQuery } from './notes/id-query';
import { refusePrototypeKeys } from './prototype-keys';

/**
 * Starts the example app on config.port (0: any free port); returns the app.
 * Writes take JSON bodies only (jsonOnlyWrites; no urlencoded parser); a Host naming an unlisted DNS name is refused (hostCheck).
 * @throws Error when it cannot listen (a port taken), its storage closed first.
 */
export async function createExampleApi(config: ExampleConfig, logger?: LoggerService | LogLevel[] | false): Promise<INestApplication> {
  // Nest's default parsers take urlencoded bodies too, which any site's HTML form can post: JSON alone here.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), { logger: logger ?? ['log', 'warn', 'error'], bodyParser: false, abortOnError: false });
  // Before anything else: a DNS-rebinding page is same-origin, and its Host header alone tells it apart.
  app.use(hostCheck(allowedHostsOf(config)));
  app.use(jsonOnlyWrites);
  // ?after= takes back the lone surrogates X-Next-After names (idQueryText): a peer's record id is any text.
  app.set('query parser', parseQuery);
  // A note's body takes 100,000 characters (NoteDto), up to 6 bytes each as JSON text (\u escapes): 100 KB, body-parser's
  // default, refused a body of 60,000 accented characters with 413.
  app.useBodyParser('json', { verify: verifyJsonDepth, limit: '1mb' });
  app.use(refusePrototypeKeys);
  app.enableShutdownHooks();
  // Bad bodies get 400 with class-validator's messages; unknown fields are refused, not stored.
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }));
  // Nest tries the global filters last registered first: a SyncomError meets its own filter before the catch-all.
  app.useGlobalFilters(new HttpErrorFilter(app.getHttpAdapter()), new SyncomHttpFilter());
  try {
    await app.listen(config.port, config.host ?? '127.0.0.1');
  } catch (e) {
    // The storage is open by now, its lock held: close it rather than leave the path unusable in this process.
    await app.close().catch(() => undefined);
    throw e;
  }
  return app;
}

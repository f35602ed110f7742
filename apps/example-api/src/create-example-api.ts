import { type INestApplication, type LoggerService, type LogLevel, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import type { ExampleConfig } from './example.config';
import { HttpErrorFilter } from './http-error.filter';
import { SyncomErrorFilter } from './syncom-error.filter';

/** Starts the example app on config.port (0: any free port); returns the app. */
export async function createExampleApi(config: ExampleConfig, logger?: LoggerService | LogLevel[] | false): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.register(config), { logger: logger ?? ['log', 'warn', 'error'] });
  app.enableShutdownHooks();
  // Bad bodies get 400 with class-validator's messages; unknown fields are refused, not stored.
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }));
  // Nest tries the global filters last registered first: a SyncomError meets its own filter before the catch-all.
  app.useGlobalFilters(new HttpErrorFilter(app.getHttpAdapter()), new SyncomErrorFilter());
  await app.listen(config.port, config.host ?? '127.0.0.1');
  return app;
}

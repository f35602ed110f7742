import type { INestApplication, LoggerService } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { Test } from '@nestjs/testing';
import { SyncomModule, type SyncomModuleOptions } from '../../src';

/** An app of SyncomModule.forRoot(options) alone, initialised (not listening), on socket.io's IoAdapter; `logger` gets Nest's lines. */
export async function startApp(options: SyncomModuleOptions, logger: LoggerService | false = false): Promise<INestApplication> {
  const builder = Test.createTestingModule({ imports: [SyncomModule.forRoot(options)] });
  const ref = await (logger ? builder.setLogger(logger) : builder).compile();
  const app = ref.createNestApplication({ logger });
  app.useWebSocketAdapter(new IoAdapter(app));
  await app.init();
  return app;
}

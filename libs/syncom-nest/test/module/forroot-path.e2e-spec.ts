import { type INestApplication, type LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncomModule, type SyncomModuleOptions } from '../../src';

const dir = mkdtempSync(join(tmpdir(), 'syncom-nest-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(options: SyncomModuleOptions, logger: LoggerService | false = false): Promise<INestApplication> {
  const builder = Test.createTestingModule({ imports: [SyncomModule.forRoot(options)] });
  const ref = await (logger ? builder.setLogger(logger) : builder).compile();
  const app = ref.createNestApplication({ logger });
  app.useWebSocketAdapter(new IoAdapter(app));
  await app.init();
  return app;
}

describe('SyncomModule.forRoot with a path that cannot be a store folder', () => {
  it('a file where the folder belongs, or a folder under a file, refuses the start with IO_ERROR naming the path (was a bare EEXIST / ENOTDIR Error, no code)', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    await expect(start({ path: file })).rejects.toMatchObject({ name: 'SyncomError', code: 'IO_ERROR', message: expect.stringContaining(file) });
    await expect(start({ path: join(file, 'data') })).rejects.toMatchObject({ name: 'SyncomError', code: 'IO_ERROR', message: expect.stringContaining(file) });
  });
});

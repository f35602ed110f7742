/**
 * The files of a fresh Nest app that uses the packed syncom and syncom-nest
 * as a user installs them: one entry that hosts the gateway (ROLE=host, with
 * authorize) or dials a hub (ROLE=dial), and a notes controller.
 */
export const consumerFiles: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'commonjs', moduleResolution: 'node10', strict: true, outDir: 'dist', rootDir: 'src',
      experimentalDecorators: true, emitDecoratorMetadata: true, esModuleInterop: true, types: ['node'], lib: ['ES2022'],
    },
    include: ['src'],
  }),
  'src/main.ts': `
import 'reflect-metadata';
import { Body, Controller, Get, Module, NotFoundException, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Storage } from 'syncom';
import { InjectStorage, SyncomModule } from 'syncom-nest';

@Controller('notes')
class NotesController {
  constructor(@InjectStorage() private readonly storage: Storage) {}
  @Post() async create(@Body() note: { title: string }): Promise<{ id: string }> {
    return { id: await this.storage.insert({ $type: 'Note', title: note.title }) };
  }
  /** Answers once the note is here: a peer's write lands through the storage's change event. */
  @Get(':id') async get(@Param('id') id: string): Promise<Record<string, unknown>> {
    const found = await this.arrival(id);
    if (!found) throw new NotFoundException(id);
    return found;
  }
  private async arrival(id: string): Promise<Record<string, unknown> | undefined> {
    const now = await this.storage.get(id);
    if (now) return now;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { off(); resolve(undefined); }, 30_000);
      const off = this.storage.on('change', () => {
        void this.storage.get(id).then((data) => { if (data) { clearTimeout(timer); off(); resolve(data); } });
      });
    });
  }
}

const host = process.env.ROLE === 'host';
const gateway = host ? { authorize: (_ctx: unknown, hello: { token?: string }) => hello.token === 't' } : undefined;

@Module({
  imports: [SyncomModule.forRoot({ path: process.env.DATA!, isGlobal: true, ...(gateway && { gateway }) })],
  controllers: [NotesController],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  if (process.env.HUB) await app.get(Storage).sync.addNode({ url: process.env.HUB, token: 't' });
  const port = (app.getHttpServer().address() as { port: number }).port;
  console.log('listening on ' + port);
}
main().catch((e) => { console.error(e); process.exit(1); });
`,
};

/**
 * The files of a fresh Nest app that uses the packed syncom and syncom-nest
 * as a user installs them: one entry that hosts the gateway (ROLE=host, with
 * authorize, meta and a guard of the app's own) or dials a hub (ROLE=dial),
 * a notes controller, and GET /seen: what the app's gateway guard read
 * (syncomProcedureOf) and how many gateway messages its APP_GUARD saw.
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
import { Body, type CanActivate, Controller, type ExecutionContext, Get, Injectable, Module, NotFoundException, Param, Post } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { Storage } from 'syncom';
import { InjectStorage, SyncomModule, syncomProcedureOf, type SyncomProcedure } from 'syncom-nest';

const seen = { gateway: [] as SyncomProcedure[], global: 0 };

/** The app's guard on the gateway (gateway.guards): what it reads of each procedure message. */
@Injectable()
class ProcedureGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const call = syncomProcedureOf(context);
    if (call) seen.gateway.push(call);
    return true;
  }
}

/** An app-wide guard: Nest 11 runs it on HTTP requests only, Nest 12 on gateway messages too. */
@Injectable()
class GlobalGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() === 'ws') seen.global++;
    return true;
  }
}

@Controller('notes')
class NotesController {
  constructor(@InjectStorage() private readonly storage: Storage) {}
  @Post() async create(@Body() note: { title: string }): Promise<{ id: string }> {
    return { id: await this.storage.insert({ $type: 'Note', title: note.title }) };
  }
  /** Answers once the note is here: a peer's write lands through the storage's change event. */
  @Get('seen') seen(): typeof seen {
    return seen;
  }
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
const gateway = host
  ? { authorize: (_ctx: unknown, hello: { token?: string }) => hello.token === 't', meta: { rateLimit: 100 }, guards: [ProcedureGuard] }
  : undefined;

@Module({
  imports: [SyncomModule.forRoot({ path: process.env.DATA!, isGlobal: true, ...(gateway && { gateway }) })],
  controllers: [NotesController],
  providers: [{ provide: APP_GUARD, useClass: GlobalGuard }],
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

/** The ```ts blocks of `markdown` that dial with createSocketIoLink, as written there. */
export function linkSnippets(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((code) => code.includes('createSocketIoLink('));
}

/**
 * The files of an ES module app (what `nest new` makes for Nest 12: "type":
 * "module", module and moduleResolution nodenext) that hands the socket of
 * socket.io-client's ESM build to the link and its options to the module,
 * without a cast; `snippets` (the READMEs' examples) are added as they are.
 */
export function esmConsumerFiles(snippets: string[]): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'consumer-esm', private: true, type: 'module' }),
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        target: 'ES2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true,
        experimentalDecorators: true, emitDecoratorMetadata: true, types: ['node'], lib: ['ES2023'],
      },
      include: ['src'],
    }),
    'src/link.ts': `
import { io, type ManagerOptions, type SocketOptions } from 'socket.io-client';
import { open } from 'syncom';
import { createSocketIoLink } from 'syncom/socket.io';
import { createSocketIoLink as nestLink, socketIoConnect, SyncomModule } from 'syncom-nest';

const socket = io('http://127.0.0.1:8000/syncom', { auth: { token: 't' }, transports: ['websocket'], autoConnect: false });
export const links = [createSocketIoLink(socket), nestLink(socket, { timeout: 5_000 })];
export const storage = await open({ path: 'data', sync: { connect: (node) => createSocketIoLink(io(node.url, { auth: { token: node.token } })) } });

const options: Partial<ManagerOptions & SocketOptions> = { transports: ['websocket'], reconnectionDelay: 50 };
export const connect = socketIoConnect(options);
export const syncom = SyncomModule.forRoot({ path: 'data', io: options, logSync: false });

// @ts-expect-error the parameter is checked (a socket, not anything): this is no socket
createSocketIoLink({ connected: true });
`,
  };
  snippets.forEach((code, i) => (files[`src/readme-${i + 1}.ts`] = code));
  return files;
}

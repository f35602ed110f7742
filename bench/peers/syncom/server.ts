import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { SyncomModule } from 'syncom-nest';
import { memoryBackend } from '../../lib/nodes';
import { serveServer } from '../server-side';

const TOKEN = 'bench-token';

/**
 * syncom's server: a Nest app hosting the syncom gateway over socket.io
 * (SyncomModule with `gateway`, as apps/hub does, token-checked), with
 * signatures as the bench asks: 'verify' or false, the same on the clients.
 * Its storage is on the memory backend, as the peers' servers keep theirs in
 * memory. Not apps/hub's createHub itself: the hub has no signatures option.
 */
serveServer(async (args) => {
  const signatures = args.signatures as 'verify' | false;
  const module = SyncomModule.forRoot({
    path: 'hub', backend: memoryBackend(), sync: { signatures },
    gateway: { access: 'public', authorize: (_ctx, hello) => hello.token === TOKEN },
  });
  const app = await NestFactory.create(module, { logger: false });
  app.useWebSocketAdapter(new IoAdapter(app));
  await app.listen(0, '127.0.0.1');
  const http = app.getHttpServer() as Server;
  const { port } = http.address() as AddressInfo;
  return { http, url: `http://127.0.0.1:${port}/syncom`, token: TOKEN, close: () => app.close() };
});

import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { createHub } from '../../apps/hub/src/create-hub';
import { serve } from '../lib/child-server';

/**
 * The hub of the socket.io replication bench, in a process of its own: the
 * real apps/hub (Nest, the syncom gateway, its token check) on an ephemeral
 * port. One process serves every run of an invocation; each run starts a
 * fresh hub app on a fresh storage, so process start-up (seconds of ts-node)
 * is paid once.
 */
let app: INestApplication | undefined;

async function stop(): Promise<void> {
  const running = app;
  app = undefined;
  // close() runs the shutdown hooks: the storage closes with the app.
  await running?.close();
}

serve({
  /** A fresh hub on `path` (a new directory), listening on 127.0.0.1:0; answers its port. */
  async start(args) {
    await stop();
    const { path, token } = args as { path: string; token: string };
    app = await createHub({ port: 0, host: '127.0.0.1', path, tokens: [token] }, false);
    return { port: (app.getHttpServer().address() as AddressInfo).port };
  },
  stop,
}, stop);

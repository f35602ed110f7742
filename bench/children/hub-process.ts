import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { Storage } from '../../libs/syncom/src';
import { createHub } from '../../apps/hub/src/create-hub';
import { armReached } from '../lib/nodes';
import { serve } from '../lib/child-server';

/**
 * The hub of the socket.io replication bench, in a process of its own: the
 * real apps/hub (Nest, the syncom gateway, its token check) on an ephemeral
 * port. One process serves every run of an invocation; each run starts a
 * fresh hub app on a fresh storage, so process start-up (seconds of ts-node)
 * is paid once.
 */
let app: INestApplication | undefined;
let armed: Promise<number> | undefined;

async function stop(): Promise<void> {
  const running = app;
  app = undefined;
  armed = undefined;
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
  /** Start watching for the hub to have applied `target` ops of `stream`. */
  arm(args) {
    if (!app) throw new Error('no hub running: send start first');
    const { stream, target } = args as { stream: string; target: number };
    armed = armReached(app.get(Storage), stream, target);
  },
  /** The time the armed target was reached. */
  async reached() {
    if (!armed) throw new Error('nothing armed');
    return { reachedAt: await armed };
  },
  stop,
}, stop);

import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { SyncomGateway } from '../../libs/syncom-nest/src';
import { Storage } from '../../libs/syncom/src';
import { createHub } from '../../apps/hub/src/create-hub';
import { serve } from '../lib/child-server';
import { processCpuUs } from '../lib/cpu';

/**
 * The hub of the fan-out bench, in a process of its own: the real apps/hub
 * on an ephemeral port, holding `ops` records it wrote itself (untimed), so
 * what its CPU counts while subscribers read them is the fan-out alone. It
 * also broadcasts given frames bare (one socket.io emit to the namespace),
 * the transport's own cost for the same deliveries.
 */
let app: INestApplication | undefined;

async function stop(): Promise<void> {
  const running = app;
  app = undefined;
  await running?.close();
}

serve({
  /** A fresh hub on `path` with `ops` records; answers its port. */
  async start(args) {
    await stop();
    const { path, token, ops } = args as { path: string; token: string; ops: number };
    app = await createHub({ port: 0, host: '127.0.0.1', path, tokens: [token], webDir: false,
      limits: { opsPerSecond: 0, socketsPerToken: 0 } } as Parameters<typeof createHub>[0], false);
    const storage = app.get(Storage);
    for (let i = 0; i < ops; i++) await storage.insert({ n: i, text: `record ${i} of the fan-out bench` });
    return { port: (app.getHttpServer().address() as AddressInfo).port };
  },
  /** CPU µs of this process so far, every thread. */
  cpu() {
    return { us: processCpuUs() };
  },
  /** Every frame once to every socket of the namespace, as one broadcast each. */
  bare(args) {
    if (!app) throw new Error('no hub running: send start first');
    const { frames } = args as { frames: { value: unknown; eventId?: string }[] };
    const server = app.get(SyncomGateway, { strict: false }).server;
    if (!server) throw new Error('the gateway has no server');
    for (const f of frames) server.emit('changes:data', { sub: 'bare', ...f });
  },
  stop,
}, stop);

import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { Storage } from '../../libs/syncom/src';
import { createHub } from '../../apps/hub/src/create-hub';
import { armReached } from '../lib/nodes';
import { serve } from '../lib/child-server';
import { mainThreadCpuUs, processCpuUs } from '../lib/cpu';

/**
 * The hub of the socket.io replication bench, in a process of its own: the
 * real apps/hub (Nest, the syncom gateway, its token check) on an ephemeral
 * port. One process serves every run of an invocation; each run starts a
 * fresh hub app on a fresh storage, so process start-up (a second or more of transpiling and loading Nest)
 * is paid once.
 */
let app: INestApplication | undefined;
/** What the hub spent from arm until the armed target was reached: CPU µs of the process and of its main thread (Linux). */
interface Reached {
  reachedAt: number;
  cpuUs: number;
  mainUs?: number;
}
let armed: Promise<Reached> | undefined;

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
    // The bench measures ingest: the hub's default rate limit (2000 ops/s per peer) would measure the limit instead.
    app = await createHub({ port: 0, host: '127.0.0.1', path, tokens: [token], limits: { opsPerSecond: 0 } }, false);
    return { port: (app.getHttpServer().address() as AddressInfo).port };
  },
  /** Start watching for the hub to have applied `target` ops of `stream`, and counting the CPU it spends meanwhile. */
  arm(args) {
    if (!app) throw new Error('no hub running: send start first');
    const { stream, target } = args as { stream: string; target: number };
    const [cpu0, main0] = [processCpuUs(), mainThreadCpuUs()];
    armed = armReached(app.get(Storage), stream, target).then((reachedAt) => {
      const main = mainThreadCpuUs();
      return { reachedAt, cpuUs: processCpuUs() - cpu0, ...(main !== undefined && main0 !== undefined && { mainUs: main - main0 }) };
    });
    armed.catch(() => undefined);
  },
  /** As arm, for several peers' streams at once (the four-peer ingest): reached when every one is. */
  armAll(args) {
    if (!app) throw new Error('no hub running: send start first');
    const { streams, target } = args as { streams: string[]; target: number };
    const storage = app.get(Storage);
    const [cpu0, main0] = [processCpuUs(), mainThreadCpuUs()];
    armed = Promise.all(streams.map((stream) => armReached(storage, stream, target))).then((stamps) => {
      const main = mainThreadCpuUs();
      return { reachedAt: Math.max(...stamps), cpuUs: processCpuUs() - cpu0, ...(main !== undefined && main0 !== undefined && { mainUs: main - main0 }) };
    });
    armed.catch(() => undefined);
  },
  /** The time the armed target was reached, and the CPU spent from arm until then. */
  reached() {
    if (!armed) throw new Error('nothing armed');
    return armed;
  },
  stop,
}, stop);

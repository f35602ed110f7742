import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { SyncomGateway } from '../../libs/syncom-nest/src';
import { pageEncodings } from '../../libs/syncom-nest/src/gateway/page-message';
import { Storage } from '../../libs/syncom/src';
import { createHub } from '../../apps/hub/src/create-hub';
import { serve } from '../lib/child-server';
import { mainThreadCpuUs, processCpuUs } from '../lib/cpu';
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

/**
 * The hub of the fan-out bench, in a process of its own: the real apps/hub
 * on an ephemeral port, holding `ops` records it wrote itself (untimed), so
 * what its CPU counts while subscribers read them is the fan-out alone. It
 * also broadcasts given frames bare (one socket.io emit to the namespace),
 * the transport's own cost for the same deliveries.
 */
let app: INestApplication | undefined;
type Frame = { value: unknown; eventId?: string };
/** The frames of the next bare broadcast. */
let bareFrames: Frame[] = [];
/** The profiler of bench/tools/fanout-profile.ts, while it runs. */
let profiler: Session | undefined;

/**
 * Resolves once the hub is quiet (under 2 ms of CPU in 100 ms, or after 10 s):
 * what its writes leave to do (sealing their batches into a segment, removing
 * the batch files) must not be counted as fan-out.
 */
async function settled(): Promise<void> {
  const end = Date.now() + 10_000;
  let last = processCpuUs();
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = processCpuUs();
    if (now - last < 2_000) return;
    last = now;
  }
}

const post = (s: Session, method: string, params?: object) => new Promise<unknown>((resolve, reject) => {
  s.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result)));
});

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
    await settled();
    return { port: (app.getHttpServer().address() as AddressInfo).port };
  },
  /**
   * Resolves once no page is out unacknowledged (checked every millisecond,
   * at most 10 s): the feeds' count ends with the hub's reading of the last
   * acks, not with the subscribers' last page.
   */
  async acked() {
    if (!app) throw new Error('no hub running: send start first');
    const unit = app.get(SyncomGateway, { strict: false }).unit as unknown as { usage(): { inFlightBytes: number } };
    const end = Date.now() + 10_000;
    while (unit.usage().inFlightBytes > 0) {
      if (Date.now() > end) throw new Error('pages still unacknowledged after 10 s');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  },
  /** CPU µs of this process so far, every thread. */
  cpu() {
    const { user, system } = process.cpuUsage();
    return { us: processCpuUs(), user, system, main: mainThreadCpuUs() };
  },
  /**
   * The frames the bare broadcast sends, parsed from the request here, before
   * the broadcast's CPU is counted: the feeds take no frames over IPC either.
   */
  frames(args) {
    bareFrames = (args as { frames: Frame[] }).frames;
  },
  /** Every frame given to `frames` once to every socket of the namespace, as one broadcast each. */
  bare() {
    if (!app) throw new Error('no hub running: send start first');
    const server = app.get(SyncomGateway, { strict: false }).server;
    if (!server) throw new Error('the gateway has no server');
    for (const f of bareFrames) server.emit('changes:data', { sub: 'bare', ...f });
  },
  /** Starts a CPU profile of this process (bench/tools/fanout-profile.ts). */
  async profile() {
    profiler = new Session();
    profiler.connect();
    await post(profiler, 'Profiler.enable');
    await post(profiler, 'Profiler.setSamplingInterval', { interval: 100 });
    await post(profiler, 'Profiler.start');
  },
  /** Stops the profile and writes it to `file`. */
  async profileStop(args) {
    if (!profiler) throw new Error('no profile running');
    const { profile } = (await post(profiler, 'Profiler.stop')) as { profile: unknown };
    profiler.disconnect();
    profiler = undefined;
    writeFileSync(String(args.file), JSON.stringify(profile));
    return { encodings: pageEncodings.count };
  },
  stop,
}, stop);

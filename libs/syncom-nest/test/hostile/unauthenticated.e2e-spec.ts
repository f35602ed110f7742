import { Controller, Get, type INestApplication } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { Test } from '@nestjs/testing';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { Storage } from 'syncom';
import { createSyncomGateway, DEFAULT_PRE_AUTH_BYTES } from '../../src/gateway';
import { SYNCOM_GATEWAY_OPTIONS } from '../../src/syncom.constants';
import type { SyncomGatewayOptions } from '../../src/syncom-options.interface';
import { memoryStorage } from '../helpers/hub';
import { mainThreadCpuUs, processCpuUs } from '../../../../bench/lib/cpu';

/**
 * What one socket without a token can make the hub pay. Before this gateway
 * read envelopes itself, class-transformer deep-copied every message in
 * superlinear time: one 0.9 MB message with many keys stalled the hub's event
 * loop for seconds, 13 MB for minutes. Now a message is at most
 * DEFAULT_PRE_AUTH_BYTES (64 KiB) before a hello succeeds, closed unparsed
 * beyond, its keys and items counted in one pass that stops at 4,096, and
 * every envelope read in linear time. The attacker runs in a child process
 * (unauthenticated-attacker.js), so its own work never delays the hub's loop.
 */

/**
 * The bound the hub's answers must keep while it is attacked, for what the
 * hub itself made them wait: a request's wall time outside the garbage
 * collector's pauses, or, where that is longer, the CPU the process spent
 * meanwhile (on a loaded machine a scavenge of this process, the test
 * runner's heap included, was seen to take 120 ms, and a request can wait
 * for a core while the process does nothing). Whole, a request still answers
 * within RESPONSIVE_WITH_GC_MS, far below the old stalls of seconds.
 */
const RESPONSIVE_MS = 100;
const RESPONSIVE_WITH_GC_MS = 1000;
/**
 * The CPU the hub's event loop may spend on one attack (receiving the
 * frames included), outside the garbage collector's pauses (see cpuOf):
 * class-transformer's copy cost seconds. CPU, not wall time, so that other
 * processes on a loaded machine do not count.
 */
const CPU_MS = 400;

@Controller('ping')
class PingController {
  @Get()
  ping(): string {
    return 'pong';
  }
}

interface Hub { app: INestApplication; url: string; http: string; storage: Storage }
interface Step { event: 'hello' | 'chunk' | 'reconcile' | 'push'; build: Record<string, unknown>; repeat?: number }
interface Outcome { step: number; ack?: { ok: boolean; error?: { code: string; status: number } }; closed?: boolean; exception?: { error?: { code: string } } }

async function startHub(options: SyncomGatewayOptions): Promise<Hub> {
  const storage = await memoryStorage();
  const Gateway = createSyncomGateway();
  const moduleRef = await Test.createTestingModule({
    controllers: [PingController],
    providers: [{ provide: Storage, useValue: storage }, { provide: SYNCOM_GATEWAY_OPTIONS, useValue: options }, Gateway],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useWebSocketAdapter(new IoAdapter(app));
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  return { app, storage, url: `http://127.0.0.1:${port}/syncom`, http: `http://127.0.0.1:${port}/ping` };
}

/** Runs the attacker's steps against `url`; resolves with every message's outcome once it exited. */
function attack(url: string, steps: Step[], token?: string): Promise<Outcome[]> {
  const env = { ...process.env, ATTACK_TOKEN: token ?? '' };
  const child = spawn(process.execPath, [join(__dirname, 'unauthenticated-attacker.js'), url, JSON.stringify(steps)], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the attacker failed (${code}): ${err}`));
      resolve(out.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Outcome));
    });
  });
}

/** The garbage collector's pauses in this process while `work` runs, as [start, end] on performance.now()'s clock. */
async function withGcPauses<T>(work: () => Promise<T>): Promise<{ result: T; pauses: [number, number][] }> {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => void entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  try {
    const result = await work();
    entries.push(...observer.takeRecords());
    return { result, pauses: entries.map((e) => [e.startTime, e.startTime + e.duration]) };
  } finally {
    observer.disconnect();
  }
}

/** How long [start, end] was not spent in a pause. */
function outsidePauses(start: number, end: number, pauses: [number, number][]): number {
  let paused = 0;
  for (const [a, b] of pauses) paused += Math.max(0, Math.min(end, b) - Math.max(start, a));
  return end - start - paused;
}

/** CPU time of this process's main thread so far, in ms (Linux; elsewhere the whole process's, every thread). */
const mainThreadMs = (): number => (mainThreadCpuUs() ?? processCpuUs()) / 1000;

/**
 * The CPU the hub's event loop (this process's main thread) spent while
 * `work` ran, in milliseconds, less the garbage collector's pauses meanwhile:
 * the process is also the test runner, whose heap is collected when it
 * happens to be. Not the whole process's CPU: V8's collector and compiler
 * threads work for the runner too (two loaded CI runs measured 450 and 500 ms
 * of it for an attack whose main thread spends about 40).
 */
async function cpuOf<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const start = mainThreadMs();
  const { result, pauses } = await withGcPauses(work);
  const spent = mainThreadMs() - start;
  const paused = pauses.reduce((sum, [a, b]) => sum + (b - a), 0);
  return { ms: spent - paused, result };
}

const refusedWith = (code: string, status: number) => ({ ack: { ok: false, error: expect.objectContaining({ code, status }) } });
// Closed unparsed: by the WebSocket layer from the frame's header (close 1009, no notice) when the frame is over
// the pre-auth bytes, else by the gate with a 413 MESSAGE_TOO_LARGE notice.
const closedTooLarge = { closed: true };

describe('hostile: what a socket without a token costs the hub', () => {
  let hub: Hub;

  beforeEach(async () => {
    hub = await startHub({ authorize: (_ctx, hello) => hello.token === 'right' });
  });

  afterEach(async () => {
    await hub.app.close();
    await hub.storage.close();
  });

  it(`HOST-1 HOST-3: during a stream of many-key messages, big hello vectors and big reconcile messages from sockets without a token, GET on the same app answers within ${RESPONSIVE_MS} ms of the hub's own time`, async () => {
    const steps: Step[] = [
      // Within the pre-auth bytes: read and refused or taken in linear time.
      { event: 'hello', build: { entries: 1000, bad: 500 }, repeat: 40 },
      { event: 'chunk', build: { extra: 4000 }, repeat: 40 },
      { event: 'reconcile', build: { keys: 4000 }, repeat: 40 },
      // Beyond them (six to ten times the bytes; class-transformer's copy of any of these took seconds): closed unparsed.
      // The 60,000-key messages of the findings are the tests below; smaller ones here keep the machine's garbage down.
      { event: 'hello', build: { entries: 12_000, bad: 6000 }, repeat: 4 },
      { event: 'reconcile', build: { keys: 40_000 }, repeat: 4 },
      { event: 'chunk', build: { extra: 40_000 }, repeat: 4 },
    ];
    // The first request of a process sets up its HTTP client: not the hub's cost.
    expect(await (await fetch(hub.http)).text()).toBe('pong');
    const requests: { start: number; end: number; cpu: number }[] = [];
    const { result: outcomes, pauses } = await withGcPauses(async () => {
      let attacking = true;
      const attacked = attack(hub.url, steps).finally(() => (attacking = false));
      while (attacking) {
        const [start, cpu] = [performance.now(), process.cpuUsage()];
        expect(await (await fetch(hub.http)).text()).toBe('pong');
        const used = process.cpuUsage(cpu);
        requests.push({ start, end: performance.now(), cpu: (used.user + used.system) / 1000 });
      }
      return attacked;
    });
    expect(outcomes).toHaveLength(132);
    const of = (step: number) => outcomes.filter((o) => o.step === step);
    for (const o of of(0)) expect(o).toMatchObject(refusedWith('BAD_REQUEST', 400));
    for (const o of of(1)) expect(o).toMatchObject({ ack: { ok: false, error: { status: 428 } } });
    for (const o of of(2)) expect(o).toMatchObject(refusedWith('MESSAGE_TOO_LARGE', 413));
    for (const step of [3, 4, 5]) for (const o of of(step)) expect(o).toMatchObject(closedTooLarge);
    expect(requests.length).toBeGreaterThan(5);
    const hubsPart = requests.map((r) => Math.min(outsidePauses(r.start, r.end, pauses), r.cpu));
    expect(Math.max(...hubsPart)).toBeLessThan(RESPONSIVE_MS);
    expect(Math.max(...requests.map((r) => r.end - r.start))).toBeLessThan(RESPONSIVE_WITH_GC_MS);
  });

  it('HOST-1: an extra property of 60,000 keys is never parsed before a hello: the connection closes unparsed', async () => {
    const { ms, result } = await cpuOf(() => attack(hub.url, [{ event: 'chunk', build: { extra: 60_000 } }, { event: 'push', build: { extra: 60_000 } }]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge), expect.objectContaining(closedTooLarge)]);
    expect(ms).toBeLessThan(CPU_MS);
  });

  it('PROTO-4 HOST-1: a hello vector of 60,000 entries with one bad one is closed unparsed; 1,000 entries with one bad one are refused 400 in linear time', async () => {
    const { ms, result } = await cpuOf(() => attack(hub.url, [
      { event: 'hello', build: { entries: 60_000, bad: 30_000, token: 'right' } },
      { event: 'hello', build: { entries: 1000, bad: 500, token: 'right' } },
    ]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge), expect.objectContaining(refusedWith('BAD_REQUEST', 400))]);
    expect(ms).toBeLessThan(CPU_MS);
  });

  it('HOST-1: a reconcile msg of 60,000 keys is closed unparsed; 4,000 keys within the bytes (8,000 keys and items) are refused 413 by the count', async () => {
    const { ms, result } = await cpuOf(() => attack(hub.url, [{ event: 'reconcile', build: { keys: 60_000 } }, { event: 'reconcile', build: { keys: 4000 } }]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge), expect.objectContaining(refusedWith('MESSAGE_TOO_LARGE', 413))]);
    expect(ms).toBeLessThan(CPU_MS);
  });

  it('HOST-3: a wrong-token hello with a 13 MB vector costs no parse before its refusal: the connection closes unparsed', async () => {
    const { ms, result } = await cpuOf(() => attack(hub.url, [{ event: 'hello', build: { entries: 240_000 } }]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge)]);
    expect(ms).toBeLessThan(CPU_MS);
  });

  it(`HOST-3: an honest hello of about a thousand origins fits the ${DEFAULT_PRE_AUTH_BYTES} pre-auth bytes and greets`, async () => {
    const result = await attack(hub.url, [{ event: 'hello', build: { entries: 1000, token: 'right' } }]);
    expect(result).toEqual([expect.objectContaining({ ack: expect.objectContaining({ ok: true }) })]);
  });
});

describe('hostile: a socket whose handshake passed authorize', () => {
  it("HOST-2 HOST-3: under access 'session' an honest hello of 5,000 origins (about 300 KB, past the pre-auth bytes) greets; without the handshake token the socket never connects", async () => {
    const hub = await startHub({ access: 'session', authorize: (_ctx, hello) => hello.token === 'right' });
    try {
      const result = await attack(hub.url, [{ event: 'hello', build: { entries: 5000, token: 'right' } }], 'right');
      expect(result).toEqual([expect.objectContaining({ ack: expect.objectContaining({ ok: true }) })]);
      await expect(attack(hub.url, [{ event: 'hello', build: { entries: 10, token: 'right' } }], 'wrong')).rejects.toThrow(/failed/);
    } finally {
      await hub.app.close();
      await hub.storage.close();
    }
  });
});

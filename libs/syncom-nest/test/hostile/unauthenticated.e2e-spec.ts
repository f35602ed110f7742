import { Controller, Get, type INestApplication } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { Test } from '@nestjs/testing';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Storage } from 'syncom';
import { createSyncomGateway, DEFAULT_PRE_AUTH_BYTES } from '../../src/gateway';
import { SYNCOM_GATEWAY_OPTIONS } from '../../src/syncom.constants';
import type { SyncomGatewayOptions } from '../../src/syncom-options.interface';
import { memoryStorage } from '../helpers/hub';

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

/** What the hub (this process) read of the attack's messages: the longest text it parsed, and the object keys it listed. */
interface Read { longestParsed: number; keysListed: number }

/**
 * What the hub read while `work` ran, counted rather than timed so that the
 * bound is deterministic: a message closed unparsed is never handed to
 * JSON.parse, and one read in linear time lists its keys a bounded number of
 * times (class-transformer's copy listed them again at every level it
 * copied).
 */
async function readBy<T>(work: () => Promise<T>): Promise<{ read: Read; result: T }> {
  const read: Read = { longestParsed: 0, keysListed: 0 };
  const [parse, keys] = [JSON.parse, Object.keys];
  const spies = [
    jest.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      read.longestParsed = Math.max(read.longestParsed, String(text).length);
      return parse(text, reviver);
    }),
    jest.spyOn(Object, 'keys').mockImplementation((o: object) => {
      const listed = keys(o);
      read.keysListed += listed.length;
      return listed;
    }),
  ];
  try {
    return { read, result: await work() };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
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

  it(`HOST-1 HOST-3: during a stream of many-key messages, big hello vectors and big reconcile messages from sockets without a token, GET on the same app answers while the hub parses nothing past the pre-auth bytes and reads the rest in linear time`, async () => {
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
    // The hub answers before the attack too.
    expect(await (await fetch(hub.http)).text()).toBe('pong');
    let answered = 0;
    const { read, result: outcomes } = await readBy(async () => {
      let attacking = true;
      const attacked = attack(hub.url, steps).finally(() => (attacking = false));
      while (attacking) {
        expect(await (await fetch(hub.http)).text()).toBe('pong');
        answered++;
      }
      return attacked;
    });
    expect(outcomes).toHaveLength(132);
    const of = (step: number) => outcomes.filter((o) => o.step === step);
    for (const o of of(0)) expect(o).toMatchObject(refusedWith('BAD_REQUEST', 400));
    for (const o of of(1)) expect(o).toMatchObject({ ack: { ok: false, error: { status: 428 } } });
    for (const o of of(2)) expect(o).toMatchObject(refusedWith('MESSAGE_TOO_LARGE', 413));
    for (const step of [3, 4, 5]) for (const o of of(step)) expect(o).toMatchObject(closedTooLarge);
    expect(answered).toBeGreaterThan(0);
    // 360,000 keys and items in the messages within the bytes: each listed about once (their count stops at the bound).
    expect(read.longestParsed).toBeLessThanOrEqual(DEFAULT_PRE_AUTH_BYTES);
    expect(read.keysListed).toBeLessThan(2 * 360_000);
  });

  it('HOST-1: an extra property of 60,000 keys is never parsed before a hello: the connection closes unparsed', async () => {
    const { read, result } = await readBy(() => attack(hub.url, [{ event: 'chunk', build: { extra: 60_000 } }, { event: 'push', build: { extra: 60_000 } }]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge), expect.objectContaining(closedTooLarge)]);
    // Nothing past the connect packets and acks is parsed: the messages weigh hundreds of kilobytes.
    expect(read.longestParsed).toBeLessThan(1024);
  });

  it('PROTO-4 HOST-1: a hello vector of 60,000 entries with one bad one is closed unparsed; 1,000 entries with one bad one are refused 400 in linear time', async () => {
    const { read, result } = await readBy(() => attack(hub.url, [
      { event: 'hello', build: { entries: 60_000, bad: 30_000, token: 'right' } },
      { event: 'hello', build: { entries: 1000, bad: 500, token: 'right' } },
    ]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge), expect.objectContaining(refusedWith('BAD_REQUEST', 400))]);
    // 1,000 entries: listed about once.
    expect(read.longestParsed).toBeLessThanOrEqual(DEFAULT_PRE_AUTH_BYTES);
    expect(read.keysListed).toBeLessThan(2 * 1000);
  });

  it('HOST-1: a reconcile msg of 60,000 keys is closed unparsed; 4,000 keys within the bytes (8,000 keys and items) are refused 413 by the count', async () => {
    const { read, result } = await readBy(() => attack(hub.url, [{ event: 'reconcile', build: { keys: 60_000 } }, { event: 'reconcile', build: { keys: 4000 } }]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge), expect.objectContaining(refusedWith('MESSAGE_TOO_LARGE', 413))]);
    // 4,000 keys and as many items: the keys listed about once.
    expect(read.longestParsed).toBeLessThanOrEqual(DEFAULT_PRE_AUTH_BYTES);
    expect(read.keysListed).toBeLessThan(2 * 4000);
  });

  it('HOST-3: a wrong-token hello with a 13 MB vector costs no parse before its refusal: the connection closes unparsed', async () => {
    const { read, result } = await readBy(() => attack(hub.url, [{ event: 'hello', build: { entries: 240_000 } }]));
    expect(result).toEqual([expect.objectContaining(closedTooLarge)]);
    // Nothing past the connect packets and acks is parsed: the messages weigh hundreds of kilobytes.
    expect(read.longestParsed).toBeLessThan(1024);
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

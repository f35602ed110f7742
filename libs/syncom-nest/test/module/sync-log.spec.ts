import { type INestApplication, Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { Storage, SyncomError } from 'syncom';
import { SyncomModule, type SyncomModuleOptions } from '../../src';
import { loggedMessage, loggedUrl, scrubbed, servedPeer } from '../../src/events/sync-logger';
import { startHub, type TestHub } from '../helpers/hub';
import { Signal } from '../helpers/until';

const TOKEN = 'a-wrong-token-7Qx2';

/** The lines logged under the context 'Syncom', as [level, message]; the spy keeps them off the console. */
function syncomLines(): { lines: [string, string][]; signal: Signal } {
  const lines: [string, string][] = [];
  const signal = new Signal();
  for (const level of ['log', 'warn', 'error'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation(function (this: Logger, ...args: unknown[]) {
      if ((this as unknown as { context?: string }).context !== 'Syncom') return;
      lines.push([level, String(args[0])]);
      signal.notify();
    });
  }
  return { lines, signal };
}

/** Counts the storage's sync errors; `until(n)` resolves once n came (the module's logger heard each first). */
function syncErrors(storage: Storage): { until(n: number): Promise<void> } {
  let count = 0;
  const signal = new Signal();
  storage.sync.on('error', () => {
    count++;
    signal.notify();
  });
  return { until: (n) => signal.until(() => count >= n, `${n} sync errors`) };
}

let n = 0;

/** A Nest app that only dials, with SyncomModule's default connect (quick redials). */
async function dialingApp(options: Partial<SyncomModuleOptions> = {}): Promise<{ app: INestApplication; storage: Storage }> {
  const io = { reconnectionDelay: 20, reconnectionDelayMax: 50 };
  const ref = await Test.createTestingModule({
    imports: [SyncomModule.forRoot({ path: `mem-sync-log-${process.pid}-${n++}`, backend: 'memory', io, ...options })],
  }).compile();
  const app = ref.createNestApplication({ logger: false });
  await app.init();
  return { app, storage: app.get(Storage) };
}

/** A TCP port that takes each connection and drops it at once, counting them: a hub that never answers. */
async function deadPort(): Promise<{ server: NetServer; port: number; attempts: () => number; signal: Signal }> {
  let attempts = 0;
  const signal = new Signal();
  const server = createServer((socket) => {
    attempts++;
    socket.destroy();
    signal.notify();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, attempts: () => attempts, signal };
}

describe('SyncomModule logs what its dialers meet (context Syncom)', () => {
  const closing: (() => Promise<unknown>)[] = [];

  /** A socket.io server on 127.0.0.1 whose /syncom namespace refuses every connection with `refusal(socket)`; its port. */
  async function refusingHost(refusal: (socket: Socket) => Error): Promise<number> {
    const io = new Server({ transports: ['websocket'] });
    io.of('/syncom').use((socket, next) => next(refusal(socket)));
    const port = await new Promise<number>((resolve) => {
      const http = createHttpServer();
      io.attach(http);
      http.listen(0, '127.0.0.1', () => resolve((http.address() as AddressInfo).port));
    });
    closing.push(() => io.close());
    return port;
  }

  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
    jest.restoreAllMocks();
  });

  it('a token refused at the handshake is one error line naming the url and the code, never the token', async () => {
    const log = syncomLines();
    const hub = await startHub({ options: { access: 'session', authorize: (_ctx, hello) => hello.token === 'the-right-one' } });
    closing.push(() => hub.close());
    const { app, storage } = await dialingApp();
    closing.push(() => app.close());
    const errors = syncErrors(storage);
    await storage.sync.addNode({ url: hub.url, token: TOKEN });
    await errors.until(1);
    expect(log.lines).toEqual([['error', expect.stringContaining(`sync with ${hub.url}: UNAUTHORIZED 401`)]]);
    expect(log.lines.join('\n')).not.toContain(TOKEN);
  });

  it('a hello refused again at every redial is logged once', async () => {
    const log = syncomLines();
    const hub: TestHub = await startHub({ options: { authorize: (_ctx, hello) => hello.token === 'the-right-one' } });
    closing.push(() => hub.close());
    const { app, storage } = await dialingApp();
    closing.push(() => app.close());
    const errors = syncErrors(storage);
    await storage.sync.addNode({ url: hub.url, token: TOKEN });
    await errors.until(1);
    // The hub drops the socket: the link redials and greets again, and is refused again.
    for (const k of [2, 3]) {
      hub.namespace().disconnectSockets();
      await errors.until(k);
    }
    expect(log.lines).toEqual([['error', expect.stringContaining(`sync with ${hub.url}: UNAUTHORIZED 401`)]]);
  });

  it('a hub that never answers is one warning however often socket.io retries; connected and lost again, it is news again', async () => {
    const log = syncomLines();
    const dead = await deadPort();
    const url = `http://127.0.0.1:${dead.port}/syncom`;
    const { app, storage } = await dialingApp();
    closing.push(() => app.close());
    await storage.sync.addNode({ url, token: TOKEN });
    await dead.signal.until(() => dead.attempts() >= 4, 'four connection attempts');
    expect(log.lines).toEqual([['warn', expect.stringMatching(new RegExp(`^cannot reach ${url}: websocket error.*; retrying until it answers$`))]]);

    await new Promise((resolve) => dead.server.close(resolve));
    const hub = await startHub({ port: dead.port, options: { access: 'public' } });
    await log.signal.until(() => log.lines.length === 2, 'the connected line');
    expect(log.lines[1]).toEqual(['log', `connected to ${url} (node ${hub.storage.id})`]);
    await hub.close();
    await log.signal.until(() => log.lines.length === 4, 'the lost and unreachable lines');
    expect(log.lines.slice(2)).toEqual([
      ['log', `disconnected from ${url}`],
      ['warn', expect.stringMatching(new RegExp(`^cannot reach ${url}: websocket error \\(ECONNREFUSED\\); retrying`))],
    ]);
    expect(log.lines.join('\n')).not.toContain(TOKEN);
  });

  it('a host that words its refusal with the token: the line holds <token>, on one line', async () => {
    const log = syncomLines();
    const port = await refusingHost((socket) => {
      const message = `no entry for token ${String(socket.handshake.auth.token)}\n[Nest] forged line`;
      return Object.assign(new Error(message), { data: { code: 'UNAUTHORIZED', status: 401, message } });
    });
    const { app, storage } = await dialingApp();
    closing.push(() => app.close());
    const errors = syncErrors(storage);
    await storage.sync.addNode({ url: `http://127.0.0.1:${port}/syncom?key=k`, token: TOKEN });
    await errors.until(1);
    expect(log.lines).toEqual([['error', `sync with http://127.0.0.1:${port}/syncom: UNAUTHORIZED 401: no entry for token <token> [Nest] forged line`]]);
  });

  it('a host whose words put the token across the 300-character cut, with a code or without: the line holds <token>, never the token cut short', async () => {
    const log = syncomLines();
    // 284 characters, then the token (18): cut first, its first 16 had been logged, where no scrub finds them.
    const words = (token: string) => `${'go away '.repeat(35)}at: ${token} please`;
    const port = await refusingHost((socket) => {
      const message = words(String(socket.handshake.auth.token));
      const coded = socket.handshake.query.coded === '1';
      return Object.assign(new Error(message), coded ? { data: { code: 'UNAUTHORIZED', status: 401, message } } : {});
    });
    const { app, storage } = await dialingApp();
    closing.push(() => app.close());
    const errors = syncErrors(storage);
    await storage.sync.addNode({ url: `http://127.0.0.1:${port}/syncom?coded=1`, token: TOKEN });
    await errors.until(1);
    await storage.sync.addNode({ url: `http://127.0.0.1:${port}/syncom?coded=0`, token: TOKEN });
    await log.signal.until(() => log.lines.some(([, m]) => m.includes('refused the connection')), 'the refusal without a code logged');
    expect(log.lines.map(([, m]) => m)).toEqual(expect.arrayContaining([
      expect.stringMatching(/: UNAUTHORIZED 401: (go away )+at: <token> please$/),
      expect.stringMatching(/refused the connection: (go away )+at: <token> please$/),
    ]));
    expect(log.lines.filter(([, m]) => m.includes(TOKEN.slice(0, 8)))).toEqual([]);
  });

  it('logSync: false logs nothing', async () => {
    const log = syncomLines();
    const hub = await startHub({ options: { access: 'session', authorize: () => false } });
    closing.push(() => hub.close());
    const { app, storage } = await dialingApp({ logSync: false });
    closing.push(() => app.close());
    const errors = syncErrors(storage);
    await storage.sync.addNode({ url: hub.url, token: TOKEN });
    await errors.until(1);
    expect(log.lines).toEqual([]);
  });

  it('urls lose user info, query and fragment; a token stands alone before it is scrubbed', () => {
    expect(loggedUrl('http://me:pw@hub:3000/syncom?token=x#y')).toBe('http://hub:3000/syncom');
    expect(loggedUrl('http://127.0.0.1:3000/syncom')).toBe('http://127.0.0.1:3000/syncom');
    expect(loggedUrl('not a url?token=x')).toBe('not a url');
    expect(scrubbed('the token t is wrong\r\n', ['t'])).toBe('the token <token> is wrong ');
    expect(scrubbed('Bearer s3cr.et+/= refused', ['s3cr.et+/='])).toBe('Bearer <token> refused');
  });

  it('an error that quotes its url whole (an app\'s link, a hook) is logged and served with the url as loggedUrl; a peer\'s last error is cut to code, status, message and url', () => {
    const url = 'http://me:pw@hub:3000/syncom?token=x';
    const e = new SyncomError('SYNC_FAILED', `${url} hung up`, { status: 502, url });
    expect(loggedMessage(e)).toBe('http://hub:3000/syncom hung up');
    const peer = { url, connected: false, lastError: e };
    expect(servedPeer(peer)).toEqual({ url: 'http://hub:3000/syncom', connected: false, lastError: { code: 'SYNC_FAILED', status: 502, message: 'http://hub:3000/syncom hung up', url: 'http://hub:3000/syncom' } });
    expect(servedPeer({ url, lastError: null })).toEqual({ url: 'http://hub:3000/syncom', lastError: null });
  });
});

import { type INestApplication, Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, Storage } from 'syncom';
import { createSyncomGateway, SYNCOM_GATEWAY_OPTIONS, socketIoConnect, SyncomGateway, SyncomModule } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';

const dir = mkdtempSync(join(tmpdir(), 'syncom-hosting-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const path = () => join(dir, `s${++n}`);

/** Compiles and initialises an app; resolves to it or rejects with what its start threw. */
async function boot(imports: unknown[], logger: CaptureLogger | false = false): Promise<INestApplication> {
  // A refused start leaves nothing to close: the storage provider refuses before open().
  const builder = Test.createTestingModule({ imports: imports as never[] });
  // The module's providers run at compile(): the logger must be in place before.
  const ref = await (logger ? builder.setLogger(logger) : builder).compile();
  const app = ref.createNestApplication({ logger });
  app.useWebSocketAdapter(new IoAdapter(app));
  await app.init();
  return app;
}

/** A dialer to the app's /syncom namespace; resolves to the hub's id on the first hello, or the first sync error's code. */
async function dial(app: INestApplication, token?: string): Promise<{ dialer: Storage; outcome: Promise<string> }> {
  if (!app.getHttpServer().listening) await app.listen(0, '127.0.0.1');
  const dialer = await open({ path: path(), backend: 'memory', sync: { connect: socketIoConnect({ reconnection: false }) } });
  const outcome = new Promise<string>((resolve) => {
    dialer.sync.on('peer', (p) => p.connected && resolve(`hello ${p.node}`));
    dialer.sync.on('error', (e) => resolve(`error ${(e as { code?: string }).code}`));
  });
  await dialer.sync.addNode({ url: `${await app.getUrl()}/syncom`, token });
  return { dialer, outcome };
}

describe('SyncomModule hosting: no silent open door', () => {
  afterEach(() => Logger.overrideLogger(false));

  it.each([
    ['gateway: {}', {}],
    ['gateway: true', true],
    ["gateway: { access: 'session' } without authorize", { access: 'session' as const }],
  ])('forRoot with %s refuses to start, saying what to set, before the storage opens', async (_t, gateway) => {
    const at = path();
    await expect(boot([SyncomModule.forRoot({ path: at, gateway })])).rejects.toMatchObject({
      code: 'GATEWAY_UNGUARDED',
      message: expect.stringMatching(/authorize.*access: 'public'/),
    });
    expect(existsSync(at)).toBe(false);
  });

  it("access: 'public' starts and warns at start that any socket may write", async () => {
    const logger = new CaptureLogger();
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory', gateway: { access: 'public' } })], logger);
    expect(logger.lines.filter(([level, ctx]) => level === 'warn' && ctx === 'SyncomModule').map(([, , m]) => m)).toEqual([
      expect.stringContaining('public'),
    ]);
    const { dialer, outcome } = await dial(app);
    expect(await outcome).toMatch(/^hello /);
    await dialer.close();
    await app.close();
  });

  it("authorize alone hosts a guarded gateway (no warning): a wrong token is refused, the right one greets", async () => {
    const logger = new CaptureLogger();
    const gateway = { authorize: (_c: unknown, hello: { token?: string }) => hello.token === 'right' };
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory', gateway })], logger);
    expect(logger.lines.filter(([level]) => level === 'warn')).toEqual([]);
    const wrong = await dial(app, 'wrong');
    expect(await wrong.outcome).toBe('error UNAUTHORIZED');
    await wrong.dialer.close();
    const right = await dial(app, 'right');
    expect(await right.outcome).toMatch(/^hello /);
    await right.dialer.close();
    await app.close();
  });

  it("forRootAsync hosts the gateway its factory asks for: gateway: true statically, authorize from the factory", async () => {
    const app = await boot([
      SyncomModule.forRootAsync({
        gateway: true,
        useFactory: () => ({ path: path(), backend: 'memory' as const, gateway: { authorize: (_c: unknown, h: { token?: string }) => h.token === 't' } }),
      }),
    ]);
    const wrong = await dial(app, 'x');
    expect(await wrong.outcome).toBe('error UNAUTHORIZED');
    await wrong.dialer.close();
    const right = await dial(app, 't');
    expect(await right.outcome).toMatch(/^hello /);
    await right.dialer.close();
    await app.close();
  });

  it('forRootAsync whose factory asks for a gateway the module did not declare fails at start, saying why', async () => {
    const at = path();
    const start = boot([SyncomModule.forRootAsync({ useFactory: () => ({ path: at, gateway: { access: 'public' as const } }) })]);
    await expect(start).rejects.toMatchObject({ code: 'GATEWAY_UNDECLARED', message: expect.stringContaining('gateway: true') });
    expect(existsSync(at)).toBe(false);
  });

  it('a gateway hosted without the module (createSyncomGateway) and no authorize refuses to start unless access: \'public\' is said', async () => {
    const storage = await open({ path: path(), backend: 'memory' });
    const start = (options: object) => Test.createTestingModule({
      providers: [{ provide: Storage, useValue: storage }, { provide: SYNCOM_GATEWAY_OPTIONS, useValue: options }, createSyncomGateway()],
    }).compile();
    await expect(start({ limits: { opsPerPush: 500 } })).rejects.toMatchObject({ code: 'GATEWAY_UNGUARDED' });
    await expect(start({ access: 'session' })).rejects.toMatchObject({ code: 'GATEWAY_UNGUARDED' });
    await (await start({ access: 'public' })).close();
    await (await start({ authorize: () => true })).close();
    await storage.close();
  });

  it('a gateway hosted without the module is held to the module\'s rules for its limits, timers, allowedOrigins, exactScopes and proveNodes; rates of 0 or null and per-push bounds of Infinity mean none', async () => {
    const storage = await open({ path: path(), backend: 'memory' });
    const start = (options: object) => Test.createTestingModule({
      providers: [{ provide: Storage, useValue: storage }, { provide: SYNCOM_GATEWAY_OPTIONS, useValue: { access: 'public', ...options } }, createSyncomGateway()],
    }).compile();
    await expect(start({ limits: { opsPerSec: 5 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', option: 'limits.opsPerSec' });
    await expect(start({ ackTimeout: Infinity })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', option: 'gateway.ackTimeout' });
    await expect(start({ readStallTimeout: 2 ** 31 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', option: 'gateway.readStallTimeout' });
    await expect(start({ exactScopes: 'true' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', option: 'exactScopes' });
    await expect(start({ proveNodes: 'false' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', option: 'proveNodes' });
    await expect(start({ allowedOrigins: 'https://app.example' })).rejects.toThrow(/a list of origins \(\['https:\/\/app\.example'\]\), or '\*' alone, not "https:\/\/app\.example"/);
    await (await start({ limits: { opsPerSecond: 0, purgesPerSecond: null, opsPerPush: Infinity, bytesPerPush: 1 << 20 } })).close();
    await storage.close();
  });

  it('forRootAsync with gateway: true and a factory that gives no guard refuses to start', async () => {
    const start = boot([SyncomModule.forRootAsync({ gateway: true, useFactory: () => ({ path: path(), backend: 'memory' as const }) })]);
    await expect(start).rejects.toMatchObject({ code: 'GATEWAY_UNGUARDED' });
  });

  it("forRootAsync whose factory names another namespace than the module was declared with refuses to start (the gateway listened on the declared one, the factory's ignored)", async () => {
    const at = path();
    const start = boot([SyncomModule.forRootAsync({ gateway: true, useFactory: () => ({ path: at, gateway: { namespace: '/other', access: 'public' as const } }) })]);
    await expect(start).rejects.toMatchObject({ code: 'GATEWAY_UNDECLARED', message: expect.stringMatching(/\/other is not the one the module was declared with \(\/syncom\)/) });
    expect(existsSync(at)).toBe(false);
  });

  it("forRootAsync whose factory names the declared namespace with or without its leading slash starts: Nest adds the slash, and both name one namespace", async () => {
    for (const [declared, asked] of [['sync-here', '/sync-here'], ['/sync-here', 'sync-here']]) {
      const app = await boot([SyncomModule.forRootAsync({ gateway: { namespace: declared }, useFactory: () => ({ path: path(), backend: 'memory' as const, gateway: { namespace: asked, access: 'public' as const } }) })]);
      expect(app.get(SyncomGateway).server?.name).toBe('/sync-here');
      await app.close();
    }
  });

  it("forRootAsync whose factory names other transports than the module was declared with refuses to start (they are the gateway class's, fixed when the module is defined); the same ones in another order start", async () => {
    const at = path();
    const polling = boot([SyncomModule.forRootAsync({ gateway: true, useFactory: () => ({ path: at, gateway: { transports: ['websocket', 'polling'] as ('websocket' | 'polling')[], access: 'public' as const } }) })]);
    await expect(polling).rejects.toMatchObject({ code: 'GATEWAY_UNDECLARED', message: expect.stringMatching(/transports websocket,polling are not the ones the module was declared with \(websocket\)/) });
    expect(existsSync(at)).toBe(false);
    const same = await boot([SyncomModule.forRootAsync({
      gateway: { transports: ['polling', 'websocket'] },
      useFactory: () => ({ path: path(), backend: 'memory' as const, gateway: { transports: ['websocket', 'polling'] as ('websocket' | 'polling')[], access: 'public' as const } }),
    })]);
    await same.close();
  });

  it.each([
    ['a misspelt module option', { logsync: false }, 'logsync', /unknown option logsync \(did you mean logSync\?\)/],
    ['logSync as a string', { logSync: 'no' }, 'logSync', /logSync must be true or false/],
    ['a scope that is no function', { scope: 'Note' }, 'scope', /scope must be a function/],
    ['authorize as a string', { gateway: { authorize: 't' } }, 'gateway.authorize', /gateway\.authorize must be a function/],
    ["access 'private'", { gateway: { access: 'private' } }, 'gateway.access', /'public' or 'session'/],
    ['a negative ackTimeout', { gateway: { access: 'public', ackTimeout: -5 } }, 'gateway.ackTimeout', /above 0/],
    ['a misspelt gateway option', { gateway: { access: 'public', authorise: () => true } }, 'gateway.authorise', /unknown option gateway\.authorise \(did you mean authorize\?\)/],
    // A limit misspelt, or read from an unset variable (NaN), had started the hub with no limit at all.
    ['a misspelt limit', { gateway: { access: 'public', limits: { opsPerSec: 5 } } }, 'limits.opsPerSec', /unknown option limits\.opsPerSec; limits takes opsPerPush, bytesPerPush, opsPerSecond, purgesPerSecond/],
    ['a limit of NaN', { gateway: { access: 'public', limits: { opsPerSecond: Number(undefined) } } }, 'limits.opsPerSecond', /limits\.opsPerSecond must be a finite number above 0, or 0 or null for none, not NaN/],
    ['a negative limit', { gateway: { access: 'public', limits: { opsPerPush: -1 } } }, 'limits.opsPerPush', /must be a whole number above 0, or Infinity for none/],
    ['a per-push limit of 1.5', { gateway: { access: 'public', limits: { opsPerPush: 1.5 } } }, 'limits.opsPerPush', /whole number/],
    ['a limit as a string', { gateway: { access: 'public', limits: { bytesPerPush: '5' } } }, 'limits.bytesPerPush', /not string/],
    // Past 2^31 - 1 ms a Node timer fires after 1 ms: the page timer had re-armed every millisecond.
    ['an ackTimeout of Infinity', { gateway: { access: 'public', ackTimeout: Infinity } }, 'gateway.ackTimeout', /at most 2147483647/],
    ['a readStallTimeout past 2^31 ms', { gateway: { access: 'public', readStallTimeout: 2 ** 31 } }, 'gateway.readStallTimeout', /at most 2147483647/],
    ['allowedOrigins as one string', { gateway: { access: 'public', allowedOrigins: 'https://app.example' } }, 'gateway.allowedOrigins', /a list of origins \(\['https:\/\/app\.example'\]\), or '\*'/],
    // The unit reads these flags `=== true`: exactScopes: config.get('EXACT_SCOPES') had started without exact scopes.
    ['exactScopes as a string, as read from .env', { gateway: { access: 'public', exactScopes: 'true' } }, 'gateway.exactScopes', /gateway\.exactScopes must be true or false, not the string "true"/],
    ['exactScopes as 1', { gateway: { access: 'public', exactScopes: 1 } }, 'gateway.exactScopes', /gateway\.exactScopes must be true or false/],
    ['proveNodes as a string', { gateway: { access: 'public', proveNodes: 'false' } }, 'gateway.proveNodes', /gateway\.proveNodes must be true or false/],
    ['meta that is no object', { gateway: { access: 'public', meta: 'readOnly' } }, 'gateway.meta', /gateway\.meta must be an object/],
    ['durable as a string (open()\'s own check)', { durable: 'true' }, 'durable', /open\(\): durable must be true or false/],
  ])('%s refuses to start with INVALID_ARGUMENT naming the option, before the storage opens', async (_t, extra, option, says) => {
    const at = path();
    await expect(boot([SyncomModule.forRoot({ path: at, ...(extra as object) })])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', option, message: expect.stringMatching(says) });
    expect(existsSync(at)).toBe(false);
  });

  it('a forRootAsync factory that returns null refuses to start with INVALID_ARGUMENT, not a bare TypeError', async () => {
    await expect(boot([SyncomModule.forRootAsync({ useFactory: () => null as never })])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('must be an object') });
  });
});

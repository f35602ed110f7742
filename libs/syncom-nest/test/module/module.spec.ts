import { internals } from 'syncom/testing';
import { Controller, Injectable, Logger, Module, type INestApplication, type OnModuleInit } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, toArray } from 'rxjs';
import type { Namespace } from 'socket.io';
import { io } from 'socket.io-client';
import { open, Storage } from 'syncom';
import {
  DEFAULT_MAX_MESSAGE_BYTES, InjectStorage, messageLimitOf, socketIoConnect, SyncomEvents, SyncomGateway, SyncomModule, type SyncomModuleOptions,
} from '../../src';
import { until } from '../helpers/until';

const dir = mkdtempSync(join(tmpdir(), 'syncom-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const path = () => join(dir, `s${++n}`);

/** A consumer injecting the storage by decorator and by type. */
@Controller()
class Consumer {
  constructor(@InjectStorage() readonly storage: Storage, readonly byType: Storage, readonly events: SyncomEvents) {}
}

async function boot(imports: unknown[]): Promise<INestApplication> {
  const ref = await Test.createTestingModule({ imports: imports as never[], controllers: [Consumer] }).compile();
  const app = ref.createNestApplication({ logger: false });
  app.useWebSocketAdapter(new IoAdapter(app));
  await app.init();
  return app;
}

@Injectable()
class OptionsFactory {
  readonly at = path();
  create(): SyncomModuleOptions {
    return { path: this.at, backend: 'memory' };
  }
}

@Module({ providers: [OptionsFactory], exports: [OptionsFactory] })
class OptionsModule {}

/** A ConfigService-shaped provider. */
@Injectable()
class Config {
  readonly values: Record<string, string> = { SYNCOM_PATH: path() };
  get(key: string): string {
    return this.values[key];
  }
}

@Module({ providers: [Config], exports: [Config] })
class ConfigModule {}

describe('SyncomModule: the module matrix', () => {
  it('forRoot opens the storage at init, injects it by decorator and by type, closes it at shutdown', async () => {
    const at = path();
    const app = await boot([SyncomModule.forRoot({ path: at, backend: 'memory' })]);
    const c = app.get(Consumer);
    expect(c.storage).toBeInstanceOf(Storage);
    expect(c.byType).toBe(c.storage);
    expect(c.storage.replica.options.path).toBe(at);
    await c.storage.insert({ a: 1 });
    await app.close();
    expect(c.storage.isClosed).toBe(true);
  });

  it('forRootAsync with useFactory and ConfigService-style injection', async () => {
    const app = await boot([
      SyncomModule.forRootAsync({ imports: [ConfigModule], inject: [Config], useFactory: (c: Config) => ({ path: c.get('SYNCOM_PATH'), backend: 'memory' as const }) }),
    ]);
    expect(app.get(Consumer).storage.replica.options.path).toBe(app.get(Config).values.SYNCOM_PATH);
    await app.close();
  });

  it('forRootAsync with useClass (a create() method) and useExisting', async () => {
    const a = await boot([SyncomModule.forRootAsync({ useClass: OptionsFactory })]);
    expect(a.get(Consumer).storage.replica.options.backend).toBe('memory');
    await a.close();
    const b = await boot([SyncomModule.forRootAsync({ imports: [OptionsModule], useExisting: OptionsFactory })]);
    expect(b.get(Consumer).storage.replica.options.path).toBe(b.get(OptionsFactory).at);
    await b.close();
  });

  it('isGlobal: a feature module injects the storage without importing SyncomModule', async () => {
    @Injectable()
    class Feature {
      constructor(@InjectStorage() readonly storage: Storage) {}
    }
    @Module({ providers: [Feature], exports: [Feature] })
    class FeatureModule {}
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory', isGlobal: true }), FeatureModule]);
    expect(app.get(Feature).storage).toBe(app.get(Consumer).storage);
    await app.close();
  });

  it('scope folds into sync.scope; no gateway unless asked', async () => {
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory', scope: (_id, d) => String(d.$type ?? '*') })]);
    const s = app.get(Consumer).storage;
    const id = await s.insert({ $type: 'Doc' });
    expect((await s.list()).find((r) => r.id === id)?.meta.scope).toBe('Doc');
    await app.listen(0, '127.0.0.1');
    const socket = io(`${await app.getUrl()}/syncom`, { transports: ['websocket'], reconnection: false });
    const refused = await new Promise<boolean>((resolve) => { socket.on('connect', () => resolve(false)); socket.on('connect_error', () => resolve(true)); });
    socket.close();
    expect(refused).toBe(true);
    await app.close();
  });

  it('gateway: { namespace } hosts peers there (forRootAsync: gateway: { namespace })', async () => {
    const app = await boot([SyncomModule.forRootAsync({ useFactory: () => ({ path: path(), backend: 'memory' as const, gateway: { access: 'public' as const } }), gateway: { namespace: '/sync-here' } })]);
    await app.listen(0, '127.0.0.1');
    const dialer = await open({ path: path(), backend: 'memory', sync: { connect: socketIoConnect({ reconnectionDelay: 20, reconnectionDelayMax: 100 }) } });
    const connected = new Promise((resolve) => dialer.sync.on('peer', (p) => p.connected && resolve(p.node)));
    await dialer.sync.addNode({ url: `${await app.getUrl()}/sync-here` });
    expect(await connected).toBe(app.get(Consumer).storage.id);
    // SyncomGateway is an alias of the hosted class: the one instance, with the namespace it serves.
    expect(app.get(SyncomGateway).server?.name).toBe('/sync-here');
    await dialer.close();
    await app.close();
  });
});

describe('SyncomModule: two modules hosting gateways in one app', () => {
  /** An app of two feature modules, each with a store of its own and a public gateway on `namespaces[i]`. */
  async function twoHosts(namespaces: [string | undefined, string | undefined]): Promise<INestApplication> {
    const feature = (namespace: string | undefined) => {
      const hosting = SyncomModule.forRoot({ path: path(), backend: 'memory', gateway: { access: 'public', ...(namespace && { namespace }) } });
      @Module({ imports: [hosting] })
      class Feature {}
      return Feature;
    };
    const ref = await Test.createTestingModule({ imports: [feature(namespaces[0]), feature(namespaces[1])] }).compile();
    const app = ref.createNestApplication({ logger: false });
    app.useWebSocketAdapter(new IoAdapter(app));
    return app;
  }

  it('on one namespace the app refuses to start with GATEWAY_NAMESPACE_TAKEN, before it takes a client (both gateways had answered every message, each from its own store)', async () => {
    const app = await twoHosts([undefined, undefined]);
    await expect(app.init()).rejects.toMatchObject({ code: 'GATEWAY_NAMESPACE_TAKEN', message: expect.stringContaining('/syncom') });
    await app.close();
  });

  it('on namespaces of their own both start and serve', async () => {
    const app = await twoHosts(['/a', '/b']);
    await app.listen(0, '127.0.0.1');
    const url = await app.getUrl();
    for (const ns of ['/a', '/b']) {
      const socket = io(`${url}${ns}`, { transports: ['websocket'], forceNew: true, reconnection: false });
      const answer = await socket.timeout(5000).emitWithAck('hello', { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] });
      socket.disconnect();
      expect(answer).toMatchObject({ ok: true });
    }
    await app.close();
  });
});

describe('SyncomModule: two hosting modules with different message sizes', () => {
  it("each gateway takes the messages its own limits allow: the socket.io engine they share is sized for the largest (the last gateway's size was every namespace's)", async () => {
    const hosting = (namespace: string, limits?: { bytesPerPush: number }) => SyncomModule.forRoot({
      path: path(), backend: 'memory',
      gateway: { access: 'public', namespace, transports: ['websocket', 'polling'], ...(limits && { limits }) },
    });
    // '/b' is connected last: its small limit had become the engine's maxHttpBufferSize, '/a''s too.
    const a = hosting('/a');
    const ref = await Test.createTestingModule({ imports: [a, hosting('/b', { bytesPerPush: 1000 })] }).compile();
    const app = ref.createNestApplication({ logger: false });
    app.useWebSocketAdapter(new IoAdapter(app));
    await app.listen(0, '127.0.0.1');
    const hub = app.select(a).get(Storage, { strict: true });
    const gateway = app.select(a).get(SyncomGateway, { strict: true });
    expect(gateway.server?.name).toBe('/a');
    expect(messageLimitOf(gateway.server as Namespace)).toBe(DEFAULT_MAX_MESSAGE_BYTES);
    // Over long-polling, where the engine's bound is read per request, a 200 KB record reaches '/a' from its dialer.
    const dialer = await open({ path: path(), backend: 'memory', sync: { connect: socketIoConnect({ transports: ['polling'], reconnectionDelay: 20, reconnectionDelayMax: 100 }) } });
    await dialer.sync.addNode({ url: `${await app.getUrl()}/a` });
    const id = await dialer.insert({ body: 'x'.repeat(200_000) });
    await until(() => hub.has(id), [dialer, hub], 'the record on /a');
    await dialer.close();
    await app.close();
  });
});

describe('SyncomEvents', () => {
  it('LIFE-6: change$ emits [op, via] for every write, and every observable completes on shutdown', async () => {
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory' })]);
    const { storage, events } = app.get(Consumer);
    const changes = firstValueFrom(events.change$.pipe(toArray()));
    const errors = firstValueFrom(events.error$.pipe(toArray()));
    const peers = firstValueFrom(events.peer$.pipe(toArray()));
    const id = await storage.insert({ a: 1 });
    await storage.inc(id, 'n');
    await app.close();
    const seen = await changes;
    expect(seen.map(([op, via]) => [op.type, op.id, via])).toEqual([['write', id, null], ['inc', id, null]]);
    expect(await errors).toEqual([]);
    expect(await peers).toEqual([]);
    // A subscription made after shutdown completes at once, adding no listener to the closed storage.
    await expect(firstValueFrom(events.change$.pipe(toArray()))).resolves.toEqual([]);
    await expect(firstValueFrom(events.error$.pipe(toArray()))).resolves.toEqual([]);
  });

  it('every observable completes, and the engine listener goes, on a shutdown whose storage close() fails', async () => {
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory' })]);
    const { storage, events } = app.get(Consumer);
    const completed: string[] = [];
    events.change$.subscribe({ complete: () => completed.push('change$') });
    events.error$.subscribe({ complete: () => completed.push('error$') });
    expect(internals(storage).events.has('change')).toBe(true);
    // A close that fails (the last seal's write refused): the app's shutdown reports it.
    const close = jest.spyOn(storage, 'close').mockRejectedValueOnce(new Error('EIO: the last seal failed'));
    await expect(app.close()).rejects.toThrow('EIO');
    close.mockRestore();
    expect(completed).toEqual(['change$', 'error$']);
    expect(internals(storage).events.has('change')).toBe(false);
    await storage.close();
  });

  it('incompatible$ gives the engine\'s incompatible event: a peer that shares no wire version', async () => {
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory' })]);
    const { storage, events } = app.get(Consumer);
    const seen = firstValueFrom(events.incompatible$.pipe(toArray()));
    const unit = storage.sync.unit({ access: 'public' });
    const hello = { node: 'old', vector: {}, epoch: 'e1', schema: null, scopes: ['*'], versions: [7] };
    await expect(unit.call('hello', hello, {})).rejects.toMatchObject({ code: 'INCOMPATIBLE' });
    await app.close();
    expect(await seen).toEqual([{ peer: 'old', versions: [7] }]);
  });

  it('an event nobody observes has no engine listener; the last unsubscribe removes it', async () => {
    const app = await boot([SyncomModule.forRoot({ path: path(), backend: 'memory' })]);
    const { storage, events } = app.get(Consumer);
    expect(internals(storage).events.has('change')).toBe(false);
    const a = events.change$.subscribe();
    const b = events.change$.subscribe();
    expect(internals(storage).events.has('change')).toBe(true);
    a.unsubscribe();
    b.unsubscribe();
    expect(internals(storage).events.has('change')).toBe(false);
    await app.close();
  });

  it("error$ gives what open() read past to a subscriber that comes in an onModuleInit after the engine's turn (Nest 12's order), once; one after bootstrap gets live errors only", async () => {
    const at = path();
    const made = await open({ path: at });
    for (let i = 0; i < 5; i++) await made.insert({ i });
    await made.close();
    // A record file damaged while the store was closed: open() repairs it from the log and reports OP_UNREADABLE.
    const file = readdirSync(join(at, 'records')).find((f) => f.endsWith('.json')) as string;
    writeFileSync(join(at, 'records', file), '{ not json');
    const seen: string[] = [];
    @Injectable()
    class Watcher implements OnModuleInit {
      constructor(readonly events: SyncomEvents) {}
      async onModuleInit() {
        // The engine emits a turn after open() resolved: this subscribes after it, as Nest 12's init does.
        await new Promise((resolve) => setImmediate(resolve));
        this.events.error$.subscribe((e) => seen.push(e.code));
      }
    }
    const syncom = SyncomModule.forRoot({ path: at });
    @Module({ imports: [syncom], providers: [Watcher], exports: [syncom] })
    class App {}
    // The module's logger says it too, whoever listens.
    const warned: string[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(function (this: Logger, m: unknown) {
      if ((this as unknown as { context?: string }).context === 'Syncom') warned.push(String(m));
    });
    const app = await boot([App]).finally(() => warn.mockRestore());
    expect(seen).toEqual(['OP_UNREADABLE']);
    expect(warned).toEqual([expect.stringMatching(/^open\(\) read past damage: OP_UNREADABLE: /)]);
    const later: string[] = [];
    app.get(SyncomEvents).error$.subscribe((e) => later.push(e.code));
    expect(later).toEqual([]);
    await app.close();
  });
});

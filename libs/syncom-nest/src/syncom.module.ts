import { type DynamicModule, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { Storage } from 'syncom';
import { SyncomEvents } from './events/syncom-events';
import { SyncLogger } from './events/sync-logger';
import { createSyncomGateway, SyncomGateway } from './gateway';
import { forget, markStarted } from './held-stores';
import { type DeclaredGateway, hostedGatewayOptions } from './hosting';
import { DEFAULT_NAMESPACE, SYNCOM_GATEWAY_OPTIONS, SYNCOM_HOSTING } from './syncom.constants';
import {
  ASYNC_OPTIONS_TYPE, ConfigurableModuleClass, OPTIONS_TYPE, SYNCOM_MODULE_OPTIONS, type SyncomModuleExtras,
} from './syncom.module-definition';
import type { SyncomGatewayOptions, SyncomModuleOptions } from './syncom-options.interface';
import { storageProvider, syncLoggerProvider } from './storage.provider';

/**
 * The gateway's providers when one is hosted: its options (from the module's, possibly async), its
 * class, and SyncomGateway as an alias of it, so an app reaches the hosted gateway and its `server`
 * (`app.get(SyncomGateway).server.in(scopeRoom('*')).fetchSockets()`) without knowing the class.
 */
function gatewayProviders(gateway: SyncomModuleExtras['gateway']): Provider[] {
  if (gateway === undefined || gateway === false) return [{ provide: SYNCOM_HOSTING, useValue: false }];
  const namespace = (typeof gateway === 'object' && gateway.namespace) || DEFAULT_NAMESPACE;
  const { transports, guards, interceptors } = typeof gateway === 'object' ? gateway : {};
  const hosted = createSyncomGateway(namespace, transports, { guards, interceptors });
  const declared: DeclaredGateway = { namespace, ...(transports && { transports }), guards, interceptors };
  return [
    { provide: SYNCOM_HOSTING, useValue: declared },
    {
      provide: SYNCOM_GATEWAY_OPTIONS,
      useFactory: (o: SyncomModuleOptions): SyncomGatewayOptions => hostedGatewayOptions(o, declared),
      inject: [SYNCOM_MODULE_OPTIONS],
    },
    hosted,
    // An alias, not a second instance: Nest connects gateways by their class's metadata, which the alias lacks.
    { provide: SyncomGateway, useExisting: hosted },
  ];
}

function withGateway(module: DynamicModule, gateway: SyncomModuleExtras['gateway']): DynamicModule {
  return { ...module, providers: [...(module.providers ?? []), ...gatewayProviders(gateway)] };
}

/**
 * syncom in a Nest app: opens the storage during module init, exports it
 * (inject with `@InjectStorage()` or by its type) and `SyncomEvents`, hosts
 * peers on a socket.io gateway when `gateway` is set, and closes the storage
 * on application shutdown (call `app.enableShutdownHooks()` so SIGTERM gets
 * there: every write that resolved is in the log by then). What its dialers
 * meet (a refused token, a hub out of reach, a hub connected or lost) is
 * logged under the context 'Syncom', once per change, unless `logSync: false`.
 *
 * @example
 * SyncomModule.forRoot({ path: 'data', scope: (id, d) => String(d.$type ?? '*'), gateway: { authorize: (ctx, hello) => tokens.has(hello.token) } })
 * SyncomModule.forRootAsync({ imports: [ConfigModule], inject: [ConfigService], gateway: true,
 *   useFactory: (c) => ({ path: c.get('SYNCOM_PATH'), gateway: { authorize: (ctx, hello) => hello.token === c.get('TOKEN') } }) })
 */
@Module({
  providers: [syncLoggerProvider, storageProvider, SyncomEvents],
  exports: [Storage, SyncomEvents],
})
export class SyncomModule extends ConfigurableModuleClass implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(Storage) private readonly storage: Storage,
    private readonly events: SyncomEvents,
    private readonly syncLog: SyncLogger,
  ) {
    super();
  }

  /**
   * The module with its options given now; `gateway` (an object or true) hosts peers. A hosted
   * gateway needs `authorize`, or `access: 'public'` said explicitly: otherwise the app refuses
   * to start (GATEWAY_UNGUARDED), before the storage opens.
   */
  static forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    return withGateway(super.forRoot(options), options.gateway);
  }

  /**
   * The module with options from a factory; `gateway` here (true or { namespace }) says whether to
   * host peers, and the factory's `gateway` gives their options (authorize, limits, ...). A factory
   * that returns gateway options without the static `gateway` fails at start (GATEWAY_UNDECLARED).
   */
  static forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return withGateway(super.forRootAsync(options), options.gateway);
  }

  /**
   * The app got this far: its store is its own until shutdown. Before, a later start on the path
   * takes it over, since an app whose start failed gets no shutdown hook (docs/nest.md).
   *
   * @throws SyncomError LOCKED when a later start took the store over while this app was not started.
   */
  onApplicationBootstrap(): void {
    markStarted(this.storage);
  }

  async onApplicationShutdown(): Promise<void> {
    // Links closing now are no hubs lost.
    this.syncLog.stop();
    try {
      // close() drains the committer: every write that resolved is logged (LIFE-24).
      await this.storage.close();
    } finally {
      // A close that fails still ends the app's observers: their subscriptions and engine listeners went on otherwise.
      forget(this.storage);
      this.events.complete();
    }
  }
}

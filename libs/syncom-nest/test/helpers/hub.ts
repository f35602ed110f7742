import type { INestApplication, Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import type { Namespace } from 'socket.io';
import { open, Storage, type OpenOptions } from 'syncom';
import { createSyncomGateway, type SyncomGateway, SyncomIoAdapter } from '../../src/gateway';
import { DEFAULT_NAMESPACE, SYNCOM_GATEWAY_OPTIONS } from '../../src/syncom.constants';
import type { SyncomGatewayOptions } from '../../src/syncom-options.interface';

let count = 0;

/** A storage on the memory backend. */
export function memoryStorage(options: Partial<OpenOptions> = {}): Promise<Storage> {
  return open({ path: `mem-${process.pid}-${count++}`, backend: 'memory', ...options });
}

/** How a test hub is set up. */
export interface HubSetup {
  /** The storage to host (default: a fresh memory storage, closed with the hub). */
  storage?: Storage | object;
  /** The gateway's options, given now. */
  options?: SyncomGatewayOptions;
  /** The gateway's options from an async factory instead (as forRootAsync gives them). */
  optionsFactory?: () => Promise<SyncomGatewayOptions>;
  namespace?: string;
  /** The gateway's transports (default WebSocket only). */
  transports?: ('websocket' | 'polling')[];
  /** A port to listen on (default 0: any free one). */
  port?: number;
  /** Nest's logger for the app (default off). */
  logger?: false | Parameters<INestApplication['useLogger']>[0];
}

/** A Nest app hosting the syncom gateway on 127.0.0.1. */
export interface TestHub {
  app: INestApplication;
  storage: Storage;
  gateway: SyncomGateway;
  port: number;
  /** What a dialer's node.url is: http://127.0.0.1:<port>/syncom */
  url: string;
  namespace(): Namespace;
  /** Closes the app; the storage too unless it was given. */
  close(): Promise<void>;
}

/** `fn` run at most once; later calls get the first call's promise. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}

/** Starts a hub: Storage and SYNCOM_GATEWAY_OPTIONS providers, the gateway class, IoAdapter, listen(0). */
export async function startHub(setup: HubSetup = {}): Promise<TestHub> {
  const owned = setup.storage === undefined;
  const storage = (setup.storage ?? (await memoryStorage())) as Storage;
  // A test hub is public unless its options say otherwise (the gateway refuses to start unguarded by accident).
  const optionsFactory = setup.optionsFactory;
  const options: Provider = optionsFactory
    ? { provide: SYNCOM_GATEWAY_OPTIONS, useFactory: async () => ({ access: 'public' as const, ...(await optionsFactory()) }) }
    : { provide: SYNCOM_GATEWAY_OPTIONS, useValue: { access: 'public' as const, ...setup.options } };
  const Gateway = createSyncomGateway(setup.namespace, setup.transports);
  const moduleRef = await Test.createTestingModule({ providers: [{ provide: Storage, useValue: storage }, options, Gateway] }).compile();
  const app = moduleRef.createNestApplication({ logger: setup.logger ?? false });
  // The adapter apps/hub uses; module.spec, hosting.spec and the unauthenticated tests keep Nest's own.
  app.useWebSocketAdapter(new SyncomIoAdapter(app));
  await app.listen(setup.port ?? 0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const gateway = app.get(Gateway);
  return {
    app, storage, gateway, port,
    url: `http://127.0.0.1:${port}${setup.namespace ?? DEFAULT_NAMESPACE}`,
    namespace: () => gateway.server as Namespace,
    // Once: a test may close a hub itself (a restart) before the fixture closes what is left.
    close: once(async () => {
      await app.close();
      if (owned) await storage.close();
    }),
  };
}

import type { Provider } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { type OpenOptions, type Storage, SyncomError, type SyncLink, urlLabel } from 'syncom';
import { io, type ManagerOptions, type SocketOptions } from 'socket.io-client';
import { type ClientSocket, createSocketIoLink } from 'syncom/socket.io';
import { SyncLogger } from './events/sync-logger';
import { openHeld } from './held-stores';
import { checkHosting, type DeclaredGateway } from './hosting';
import { SYNCOM_HOSTING } from './syncom.constants';
import { SYNCOM_MODULE_OPTIONS } from './syncom.module-definition';
import type { SyncomModuleOptions } from './syncom-options.interface';
import { getStorageToken } from './storage.decorators';

type Dialed = { url: string; token?: string };

/** Told of each socket the default connect opens, before its link takes it (the module's SyncLogger). */
export type SocketWatch = (node: Dialed, socket: ClientSocket) => void;

/** The default `sync.connect` of a Nest app: the engine's socket.io link ('syncom/socket.io') to the node's url (DESIGN: Using it from Nest). */
export function socketIoConnect(io$: SyncomModuleOptions['io'] = {}, watch?: SocketWatch): (node: Dialed) => SyncLink {
  // SyncomIoOptions only widens the transport classes to the ESM build's too: the same classes to io().
  const given = io$ as Partial<ManagerOptions & SocketOptions>;
  return (node) => {
    dialable(node.url);
    // A host's frame is bounded at 16 MiB (ws takes 100 MiB, eleven frames to an answer) unless the app gives its own transport options.
    const socket = io(node.url, { transports: ['websocket'], transportOptions: { websocket: { maxPayload: 16 * 2 ** 20 } }, ...given, auth: { token: node.token } });
    watch?.(node, socket);
    return createSocketIoLink(socket);
  };
}

/**
 * Whether the default connect dials `url`: it parses (WHATWG URL) and its
 * scheme is http, https, ws or wss. socket.io-client takes any string
 * (`http://[bad` leaves the socket waiting with no error, `localhost:3000`
 * becomes https); the hub holds SYNCOM_PEERS to the same rule at start.
 */
export function isHubUrl(url: string): boolean {
  try {
    return /^(https?|wss?):$/.test(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * Refuse a url the default connect would dial as nothing (isHubUrl), so the
 * node's lastError says so: thrown from connect(node), it is the node's
 * lastError and error event, dialed again backed off as any failed connect
 * (docs/nest.md).
 * @throws SyncomError INVALID_ARGUMENT.
 */
function dialable(url: string): void {
  if (isHubUrl(url)) return;
  throw new SyncomError('INVALID_ARGUMENT', `${urlLabel(url)} is no http(s) or ws(s) url: the default connect dials socket.io hubs only (give sync.connect for another transport)`, { url });
}

/** open()'s options from the module's: `scope` folds into sync.scope, connect defaults to socket.io (its sockets told to `watch`). */
export function toOpenOptions(o: SyncomModuleOptions, watch?: SocketWatch): OpenOptions {
  // isGlobal is a module extra; forRoot's transform sees it among the options.
  const { gateway: _g, io: io$, scope, logSync: _l, isGlobal: _i, ...rest } = o as SyncomModuleOptions & { isGlobal?: unknown };
  return { ...rest, sync: { ...rest.sync, scope: rest.sync?.scope ?? scope, connect: rest.sync?.connect ?? socketIoConnect(io$, watch) } };
}

/** The module's SyncLogger, on unless `logSync: false`. */
export const syncLoggerProvider: Provider<SyncLogger> = {
  provide: SyncLogger,
  useFactory: (o: SyncomModuleOptions) => new SyncLogger(o?.logSync !== false),
  inject: [SYNCOM_MODULE_OPTIONS],
};

/**
 * @throws SyncomError INVALID_ARGUMENT (option isGlobal) when more than one SyncomModule of the app is global:
 * every module would see two Storage providers, and Nest injects one of them without saying which.
 */
function checkOneGlobal(app: ModulesContainer): void {
  const global = [...app.values()].filter((m) => m.isGlobal && m.providers.has(SYNCOM_MODULE_OPTIONS)).length;
  if (global < 2) return;
  throw new SyncomError(
    'INVALID_ARGUMENT',
    `isGlobal: ${global} SyncomModules of this app are global, so @InjectStorage() would get one of their stores without saying which: make at most one global, and import each other SyncomModule in the feature module that uses its store`,
    { option: 'isGlobal' },
  );
}

/**
 * Opens the storage during module init (an async factory: Nest awaits it before the app listens),
 * once the hosting options are known to be sound and the app has at most one global SyncomModule, so a
 * refused start holds no store. The sync logger follows it from the moment open() resolves: nothing came
 * over the network before.
 * The app's ModulesContainer (one per app) tells which app a store was opened for: a start
 * that failed left its store open, and the next start on the path closes it (openHeld).
 */
export const storageProvider: Provider<Promise<Storage>> = {
  provide: getStorageToken(),
  useFactory: async (o: SyncomModuleOptions, hosting?: DeclaredGateway | false, log?: SyncLogger, app?: ModulesContainer) => {
    checkHosting(o, hosting ?? false);
    if (app) checkOneGlobal(app);
    const storage = await openHeld(toOpenOptions(o, log?.socket), app ?? {}, () => log?.stop());
    log?.watch(storage);
    return storage;
  },
  inject: [SYNCOM_MODULE_OPTIONS, { token: SYNCOM_HOSTING, optional: true }, { token: SyncLogger, optional: true }, ModulesContainer],
};

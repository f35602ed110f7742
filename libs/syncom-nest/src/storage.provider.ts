import type { Provider } from '@nestjs/common';
import { type OpenOptions, open, type Storage, type SyncLink } from 'syncom';
import { io } from 'socket.io-client';
import { createSocketIoLink } from 'syncom/socket.io';
import { checkHosting } from './hosting';
import { SYNCOM_HOSTING } from './syncom.constants';
import { SYNCOM_MODULE_OPTIONS } from './syncom.module-definition';
import type { SyncomModuleOptions } from './syncom-options.interface';
import { getStorageToken } from './storage.decorators';

type Dialed = { url: string; token?: string };

/** The default `sync.connect` of a Nest app: the engine's socket.io link ('syncom/socket.io') to the node's url (DESIGN: Using it from Nest). */
export function socketIoConnect(io$: SyncomModuleOptions['io'] = {}): (node: Dialed) => SyncLink {
  return (node) => createSocketIoLink(io(node.url, { transports: ['websocket'], ...io$, auth: { token: node.token } }));
}

/** open()'s options from the module's: `scope` folds into sync.scope, connect defaults to socket.io. */
export function toOpenOptions(o: SyncomModuleOptions): OpenOptions {
  // isGlobal is a module extra; forRoot's transform sees it among the options.
  const { gateway: _g, io: io$, scope, isGlobal: _i, ...rest } = o as SyncomModuleOptions & { isGlobal?: unknown };
  return { ...rest, sync: { ...rest.sync, scope: rest.sync?.scope ?? scope, connect: rest.sync?.connect ?? socketIoConnect(io$) } };
}

/**
 * Opens the storage during module init (an async factory: Nest awaits it before the app listens),
 * once the hosting options are known to be sound, so a refused start holds no store.
 */
export const storageProvider: Provider<Promise<Storage>> = {
  provide: getStorageToken(),
  useFactory: (o: SyncomModuleOptions, hosting?: string | false) => {
    checkHosting(o, hosting ?? false);
    return open(toOpenOptions(o));
  },
  inject: [SYNCOM_MODULE_OPTIONS, { token: SYNCOM_HOSTING, optional: true }],
};

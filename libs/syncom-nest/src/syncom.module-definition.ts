import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { GatewayTransport, SyncomModuleOptions } from './syncom-options.interface';

/**
 * The module's static extras: `isGlobal`, and in forRootAsync whether (and on
 * which namespace) the gateway is hosted, since a socket.io namespace must be
 * known when the gateway class is decorated, before any factory ran.
 */
export interface SyncomModuleExtras {
  isGlobal?: boolean;
  gateway?: boolean | { namespace?: string; transports?: GatewayTransport[] };
}

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: SYNCOM_MODULE_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<SyncomModuleOptions>({ moduleName: 'Syncom' })
  .setClassMethodName('forRoot')
  // Only isGlobal is stripped from the options provider: `gateway` stays, so
  // forRoot's gateway options (authorize, limits) reach the gateway.
  .setExtras<SyncomModuleExtras>({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

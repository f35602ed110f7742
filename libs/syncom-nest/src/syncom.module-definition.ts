import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { GatewayTransport, SyncomGatewayEnhancers, SyncomModuleOptions } from './syncom-options.interface';

/**
 * The module's static extras: `isGlobal`, and in forRootAsync whether (and on
 * which namespace) the gateway is hosted, since a socket.io namespace must be
 * known when the gateway class is decorated, before any factory ran; so must
 * the app's own guards and interceptors on it.
 */
export interface SyncomModuleExtras {
  isGlobal?: boolean;
  gateway?: boolean | ({ namespace?: string; transports?: GatewayTransport[] } & SyncomGatewayEnhancers);
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

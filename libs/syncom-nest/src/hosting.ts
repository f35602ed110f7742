import { Logger } from '@nestjs/common';
import { SyncomError } from 'syncom';
import { checkModuleOptions } from './module-options';
import type { SyncomGatewayOptions, SyncomModuleOptions } from './syncom-options.interface';

const logger = new Logger('SyncomModule');

/** The gateway options the module's (possibly async) options carry. */
const givenOf = (o: SyncomModuleOptions): SyncomGatewayOptions => (typeof o.gateway === 'object' ? o.gateway : {});

/**
 * A gateway is never open by accident: without `authorize` a hosting app must say
 * `access: 'public'` in so many words, since any socket could then write into the store.
 *
 * @throws SyncomError GATEWAY_UNGUARDED when neither `authorize` nor `access: 'public'` is given.
 */
function checkGuarded(o: SyncomModuleOptions, namespace: string): void {
  const given = givenOf(o);
  if (!given.authorize && given.access !== 'public') {
    throw new SyncomError(
      'GATEWAY_UNGUARDED',
      `SyncomModule: the gateway on ${namespace} has no authorize: set gateway.authorize (hello) => boolean to check ` +
        `peers' tokens, or gateway.access: 'public' to let any socket read and write this store`,
    );
  }
}

/** The options the hosted gateway runs with; a public one is warned about at start. */
export function hostedGatewayOptions(o: SyncomModuleOptions, namespace: string): SyncomGatewayOptions {
  checkHosting(o, namespace);
  const given = givenOf(o);
  if (!given.authorize) logger.warn(`the gateway on ${namespace} is public: any socket may read and write this store (gateway.access: 'public')`);
  return { ...given, namespace };
}

/**
 * Checked before the storage opens, so a misconfigured app fails at start holding nothing:
 * a hosted gateway must be guarded; an app that hosts none must not have asked for one.
 *
 * @throws SyncomError GATEWAY_UNGUARDED or GATEWAY_UNDECLARED.
 */
export function checkHosting(o: SyncomModuleOptions, namespace: string | false): void {
  checkModuleOptions(o);
  if (namespace === false) checkNoGatewayAsked(o);
  else {
    checkDeclaredNamespace(o, namespace);
    checkGuarded(o, namespace);
  }
}

/**
 * forRootAsync's factory naming another namespace than the module was
 * declared with: a socket.io namespace is read when the module is defined,
 * so the gateway listened on the declared one and the factory's was ignored.
 *
 * @throws SyncomError GATEWAY_UNDECLARED naming both.
 */
function checkDeclaredNamespace(o: SyncomModuleOptions, namespace: string): void {
  const asked = givenOf(o).namespace;
  if (asked === undefined || asked === namespace) return;
  throw new SyncomError(
    'GATEWAY_UNDECLARED',
    `SyncomModule.forRootAsync: the factory's gateway.namespace ${asked} is not the one the module was declared with (${namespace}); ` +
      'a namespace is read when the module is defined: give it beside useFactory, as gateway: { namespace }',
  );
}

/**
 * forRootAsync without a static `gateway`: the namespace was not known when the module was
 * defined, so no gateway class exists. A factory that asks for one anyway is told so at start,
 * rather than running with nothing hosted.
 *
 * @throws SyncomError GATEWAY_UNDECLARED when the factory's options carry `gateway`.
 */
function checkNoGatewayAsked(o: SyncomModuleOptions): void {
  if (!o.gateway) return;
  throw new SyncomError(
    'GATEWAY_UNDECLARED',
    'SyncomModule.forRootAsync: the factory returned gateway options, but the module was not declared with ' +
      '`gateway: true` (or { namespace }) beside useFactory; add it there, since the socket.io namespace must be known before the factory runs',
  );
}

import { Logger } from '@nestjs/common';
import { SyncomError, unitBounds } from 'syncom';
import { checkModuleOptions } from './module-options';
import { DEFAULT_TRANSPORTS, UNIT_PASSED } from './syncom.constants';
import { checkedOrigins } from './gateway/allowed-origins';
import { isGuarded } from './gateway/syncom.gateway';
import type { GatewayTransport, SyncomGatewayEnhancers, SyncomGatewayOptions, SyncomModuleOptions } from './syncom-options.interface';

/** What the module was declared to host: the namespace, and the transports when given (the gateway class's own, fixed when it is defined). */
export interface DeclaredGateway extends SyncomGatewayEnhancers {
  namespace: string;
  transports?: GatewayTransport[];
}

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
  if (!isGuarded(givenOf(o))) {
    throw new SyncomError(
      'GATEWAY_UNGUARDED',
      `SyncomModule: the gateway on ${namespace} has no authorize: set gateway.authorize (hello) => boolean to check ` +
        `peers' tokens, or gateway.access: 'public' to let any socket read and write this store`,
    );
  }
}

/** The options the hosted gateway runs with; a public one is warned about at start. */
export function hostedGatewayOptions(o: SyncomModuleOptions, declared: DeclaredGateway): SyncomGatewayOptions {
  checkHosting(o, declared);
  const { namespace } = declared;
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
export function checkHosting(o: SyncomModuleOptions, declared: DeclaredGateway | false): void {
  checkModuleOptions(o);
  if (declared === false) checkNoGatewayAsked(o);
  else {
    checkDeclaredNamespace(o, declared.namespace);
    checkDeclaredTransports(o, declared);
    checkDeclaredEnhancers(o, declared);
    checkGuarded(o, declared.namespace);
    checkGatewayBounds(givenOf(o));
  }
}

/**
 * What the gateway would refuse when it is made (an origin that is none, a
 * unit bound out of range), refused before the storage opens: made after, the
 * failed start left the store open and locked in a process that went on (a
 * hub started again on its path was LOCKED).
 *
 * @throws TypeError for an allowedOrigins entry that is no origin; SyncomError INVALID_ARGUMENT for a bound.
 */
function checkGatewayBounds(given: SyncomGatewayOptions): void {
  checkedOrigins(given.allowedOrigins);
  unitBounds({ ...Object.fromEntries(UNIT_PASSED.map((k) => [k, given[k]])), limits: given.limits });
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
  // Nest adds a namespace's leading slash: 'sync' and '/sync' are one namespace, and were refused as two.
  const slashed = (n: string) => (n.startsWith('/') ? n : `/${n}`);
  if (asked === undefined || slashed(asked) === slashed(namespace)) return;
  throw new SyncomError(
    'GATEWAY_UNDECLARED',
    `SyncomModule.forRootAsync: the factory's gateway.namespace ${asked} is not the one the module was declared with (${namespace}); ` +
      'a namespace is read when the module is defined: give it beside useFactory, as gateway: { namespace }',
  );
}

/**
 * forRootAsync's factory naming other transports than the module was
 * declared with: like the namespace, they are the gateway class's, fixed
 * when the module is defined, and the factory's were ignored.
 *
 * @throws SyncomError GATEWAY_UNDECLARED naming both.
 */
function checkDeclaredTransports(o: SyncomModuleOptions, declared: DeclaredGateway): void {
  const asked = givenOf(o).transports;
  const fixed = declared.transports ?? DEFAULT_TRANSPORTS;
  const same = (x: readonly string[], y: readonly string[]) => [...new Set(x)].sort().join() === [...new Set(y)].sort().join();
  if (asked === undefined || same(asked, fixed)) return;
  throw new SyncomError(
    'GATEWAY_UNDECLARED',
    `SyncomModule.forRootAsync: the factory's gateway.transports ${asked.join(',')} are not the ones the module was declared with (${fixed.join(',')}); ` +
      'transports are read when the module is defined: give them beside useFactory, as gateway: { namespace, transports }',
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

/**
 * forRootAsync's factory naming guards or interceptors the module was not declared with: they are
 * the gateway class's, decorated when the module is defined, and the factory's would not run.
 *
 * @throws SyncomError GATEWAY_UNDECLARED naming the option.
 */
function checkDeclaredEnhancers(o: SyncomModuleOptions, declared: DeclaredGateway): void {
  const given = givenOf(o);
  for (const key of ['guards', 'interceptors'] as const) {
    const asked = given[key];
    const fixed = declared[key] ?? [];
    if (asked === undefined || (asked.length === fixed.length && asked.every((x, i) => x === fixed[i]))) continue;
    throw new SyncomError(
      'GATEWAY_UNDECLARED',
      `SyncomModule.forRootAsync: the factory's gateway.${key} are not the ones the module was declared with; ` +
        `they are the gateway class's, read when the module is defined: give them beside useFactory, as gateway: { ${key} }`,
    );
  }
}

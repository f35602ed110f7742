import { checkOptionShape, OPEN_OPTION_KEYS, type OptionRule, type OptionShape, SyncomError } from 'syncom';
import { UNIT_PASSED } from './syncom.constants';
import type { SyncomModuleOptions } from './syncom-options.interface';

const isFunction = (x: unknown) => typeof x === 'function';
const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
const positive = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;
/** The longest a Node timer waits: past it setTimeout fires after 1 ms (a page timer re-armed every millisecond). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const timer = (x: unknown) => positive(x) && (x as number) <= MAX_TIMER_MS;
const countOrZero = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
/** A key taken as it is here: open() checks its own options, the host unit its (UNIT_PASSED, but for the ones typed below). */
const ANY: OptionRule = ['', () => true];
const taken = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, ANY]));

/** A list of what @UseGuards / @UseInterceptors take: classes, or instances with the method `method`. */
function isEnhancers(x: unknown, method: string): boolean {
  return Array.isArray(x) && x.every((e) => isFunction(e) || (isObject(e) && isFunction((e as Record<string, unknown>)[method])));
}

const GUARDS: [string, (x: unknown) => boolean] = ['a list of guard classes or instances', (x) => isEnhancers(x, 'canActivate')];
const INTERCEPTORS: [string, (x: unknown) => boolean] = ['a list of interceptor classes or instances', (x) => isEnhancers(x, 'intercept')];

/**
 * The app's guards and interceptors for a gateway class, checked before it is decorated with them
 * (Nest's decorators throw an error of their own, with no code).
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option.
 */
export function checkGatewayEnhancers(o: { guards?: unknown; interceptors?: unknown }): void {
  for (const [key, [what, ok]] of [['guards', GUARDS], ['interceptors', INTERCEPTORS]] as const) {
    if (o[key] !== undefined && !ok(o[key])) {
      throw new SyncomError('INVALID_ARGUMENT', `SyncomGateway: gateway.${key} must be ${what}`, { option: `gateway.${key}` });
    }
  }
}

/** The gateway's options that the module reads itself. */
const GATEWAY: OptionShape = {
  namespace: ['a socket.io namespace (a string)', (x) => typeof x === 'string' && x.length > 0],
  transports: ['an array of transports', Array.isArray],
  access: ["'public' or 'session'", (x) => x === 'public' || x === 'session'],
  authorize: ['a function (context, hello) => boolean', isFunction],
  limits: ['a limits object ({ opsPerPush?, bytesPerPush?, opsPerSecond?, purgesPerSecond? })', isObject],
  ackTimeout: [`a number of ms above 0, at most ${MAX_TIMER_MS} (24.8 days)`, timer],
  authorizeTimeout: [`a number of ms above 0, at most ${MAX_TIMER_MS} (24.8 days)`, timer],
  preAuthBytes: ['a finite number of bytes above 0', positive],
  readStallTimeout: [`a number of ms above 0, at most ${MAX_TIMER_MS} (24.8 days)`, timer],
  maxConnections: ['a count, 0 or more (0: no cap)', countOrZero],
  maxInboundBytes: ['a count of bytes, 0 or more (0: no bound)', countOrZero],
  allowedOrigins: ["a list of origins (['https://app.example']), or '*'", (x) => x === '*' || Array.isArray(x)],
  guards: GUARDS,
  interceptors: INTERCEPTORS,
  ...taken(UNIT_PASSED),
  // The unit reads these flags `=== true`: `exactScopes: config.get('EXACT_SCOPES')` (the string 'true') had started without exact scopes.
  exactScopes: ['true or false', (x) => typeof x === 'boolean'],
  proveNodes: ['true or false', (x) => typeof x === 'boolean'],
  meta: ['an object (read by your guards and interceptors)', isObject],
};

/** The module's own options and open()'s (which open() checks); forRoot's isGlobal never reaches them (an extra). */
const MODULE: OptionShape = {
  gateway: ['true, false or gateway options', (x) => typeof x === 'boolean' || isObject(x)],
  io: ['socket.io-client options', isObject],
  scope: ['a function (id, data) => scope', isFunction],
  logSync: ['true or false', (x) => typeof x === 'boolean'],
  // false, from a config object spread into the factory's answer, changes nothing.
  isGlobal: ['set beside useFactory', (x) => x === false],
  ...taken(OPEN_OPTION_KEYS),
};

/**
 * The module's options checked at start, before the storage opens: its own
 * (gateway, io, scope, logSync) and the gateway's by name and type, as
 * open() checks its own (checkOptionShape). A misspelt option or a wrong type
 * had been taken as it came: `authorize: 't'` refused every peer, `access:
 * 'private'` served as public, `logSync: 'no'` logged.
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option (`option`).
 */
export function checkModuleOptions(o: SyncomModuleOptions): void {
  if (!isObject(o)) {
    throw new SyncomError('INVALID_ARGUMENT', `SyncomModule: the options (or what useFactory returned) must be an object, not ${o === null ? 'null' : typeof o}`, { option: '' });
  }
  const options = o as unknown as Record<string, unknown>;
  // ConfigurableModuleBuilder takes isGlobal out of forRoot's options: here it came from a factory, too late to make the module global.
  if (options.isGlobal !== undefined && options.isGlobal !== false) {
    throw new SyncomError('INVALID_ARGUMENT', 'SyncomModule: isGlobal in what useFactory returned makes nothing global (Nest reads it when the module is defined): give it beside the factory, forRootAsync({ isGlobal: true, useFactory })', { option: 'isGlobal' });
  }
  checkOptionShape(options, MODULE, 'SyncomModule');
  if (isObject(o.gateway)) checkOptionShape(o.gateway as unknown as Record<string, unknown>, GATEWAY, 'SyncomModule', 'gateway.');
}

/**
 * The gateway's timers, as the module's rules hold them (at most
 * MAX_TIMER_MS): for a gateway made without the module, whose options no
 * module rule read.
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option.
 */
export function checkGatewayTimers(o: { ackTimeout?: unknown; readStallTimeout?: unknown; authorizeTimeout?: unknown }): void {
  for (const key of ['ackTimeout', 'readStallTimeout', 'authorizeTimeout'] as const) {
    const x = o[key];
    if (x !== undefined && !timer(x)) {
      throw new SyncomError('INVALID_ARGUMENT', `SyncomGateway: gateway.${key} must be a number of ms above 0, at most ${MAX_TIMER_MS} (24.8 days), not ${String(x)}`, { option: `gateway.${key}` });
    }
  }
}

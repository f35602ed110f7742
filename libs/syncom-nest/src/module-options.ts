import { SyncomError } from 'syncom';
import { UNIT_PASSED } from './syncom.constants';
import type { SyncomModuleOptions } from './syncom-options.interface';

/** What a value must be, and the test of it. */
type Rule = readonly [what: string, ok: (x: unknown) => boolean];

const isFunction = (x: unknown) => typeof x === 'function';
const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
const positive = (x: unknown) => typeof x === 'number' && x > 0;
const countOrZero = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
const ANY: Rule = ['', () => true];

/** The module's own options; the others are open()'s, which open() checks (INVALID_ARGUMENT naming them). */
const MODULE: Record<string, Rule> = {
  gateway: ['true, false or gateway options', (x) => typeof x === 'boolean' || isObject(x)],
  io: ['socket.io-client options', isObject],
  scope: ['a function (id, data) => scope', isFunction],
  logSync: ['true or false', (x) => typeof x === 'boolean'],
};

/** The gateway's options that the module reads itself; the unit's (UNIT_PASSED) the host unit checks. */
const GATEWAY: Record<string, Rule> = {
  namespace: ['a socket.io namespace (a string)', (x) => typeof x === 'string' && x.length > 0],
  transports: ['an array of transports', Array.isArray],
  access: ["'public' or 'session'", (x) => x === 'public' || x === 'session'],
  authorize: ['a function (context, hello) => boolean', isFunction],
  limits: ['a limits object ({ opsPerPush?, bytesPerPush?, opsPerSecond?, purgesPerSecond? })', isObject],
  ackTimeout: ['a number of ms above 0', positive],
  preAuthBytes: ['a number of bytes above 0', positive],
  readStallTimeout: ['a number of ms above 0', positive],
  maxConnections: ['a count, 0 or more (0: no cap)', countOrZero],
  maxInboundBytes: ['a count of bytes, 0 or more (0: no bound)', countOrZero],
  allowedOrigins: ["an origin, a list of them, or '*'", (x) => typeof x === 'string' || Array.isArray(x)],
  ...Object.fromEntries(UNIT_PASSED.map((k) => [k, ANY])),
};

/** The open() options a module's options may carry (open() checks their values). */
const OPEN_KEYS = ['path', 'backend', 'actor', 'schema', 'durable', 'hooks', 'telemetry', 'sync', 'now'];
/** ConfigurableModuleBuilder's extra beside the options. */
const EXTRAS = ['isGlobal'];

function refuse(message: string, option: string): never {
  throw new SyncomError('INVALID_ARGUMENT', `SyncomModule: ${message}`, { option });
}

/** A name the unknown `key` most likely meant: the same lowercased, or one letter off. */
function meant(key: string, known: readonly string[]): string {
  const k = key.toLowerCase();
  const near = known.find((n) => n.toLowerCase() === k) ?? known.find((n) => Math.abs(n.length - k.length) <= 1 && oneOff(n.toLowerCase(), k));
  return near ? ` (did you mean ${near}?)` : '';
}

/** Whether a and b differ by one letter changed, added or dropped. */
function oneOff(a: string, b: string): boolean {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(i + 1) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i) || a.slice(i) === b.slice(i + 1);
}

function checkKeys(value: Record<string, unknown>, rules: Record<string, Rule>, at: string, more: readonly string[] = []): void {
  const known = [...Object.keys(rules), ...more];
  for (const [key, x] of Object.entries(value)) {
    const rule = rules[key];
    if (!rule) {
      if (more.includes(key)) continue;
      refuse(`unknown option ${at}${key}${meant(key, known)}`, `${at}${key}`);
    }
    if (x !== undefined && !rule[1](x)) refuse(`${at}${key} must be ${rule[0]}, not ${x === null ? 'null' : typeof x}`, `${at}${key}`);
  }
}

/**
 * The module's options checked at start, before the storage opens: its own
 * (gateway, io, scope, logSync) and the gateway's by name and type; open()'s
 * it checks itself. A misspelt option or a wrong type had been taken as it
 * came: `authorize: 't'` refused every peer, `access: 'private'` served as
 * public, `logSync: 'no'` logged.
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option (`option`).
 */
export function checkModuleOptions(o: SyncomModuleOptions): void {
  if (!isObject(o)) refuse(`the options (or what useFactory returned) must be an object, not ${o === null ? 'null' : typeof o}`, '');
  checkKeys(o as unknown as Record<string, unknown>, MODULE, '', [...OPEN_KEYS, ...EXTRAS]);
  if (isObject(o.gateway)) checkKeys(o.gateway as unknown as Record<string, unknown>, GATEWAY, 'gateway.');
}

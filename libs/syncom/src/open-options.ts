import { SyncomError } from './errors';
import type { OpenOptions } from './storage/options';

/** What a value must be, and the test of it. */
export type OptionRule = readonly [what: string, ok: (x: unknown) => boolean];
/** The options of one object: each key's rule, or the rules of the object it holds. */
export type OptionShape = { readonly [key: string]: OptionRule | { readonly shape: OptionShape } };

const isFunction = (x: unknown) => typeof x === 'function';
const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
const positiveInt = (x: unknown) => Number.isSafeInteger(x) && (x as number) > 0;
const countOrZero = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
const nonNegative = (x: unknown) => typeof x === 'number' && x >= 0;

const FUNCTION: OptionRule = ['a function', isFunction];
const BOOLEAN: OptionRule = ['true or false', (x) => typeof x === 'boolean'];
const POSITIVE: OptionRule = ['a positive integer', positiveInt];
/** A bound: a positive integer, or Infinity for none. */
const BOUND: OptionRule = ['a positive integer, or Infinity for no bound', (x) => positiveInt(x) || x === Infinity];

const HOOKS: OptionShape = { beforeApply: FUNCTION };

const SYNC: OptionShape = {
  connect: FUNCTION,
  autoStart: BOOLEAN,
  maxOutbox: ['a count of ops, 0 or more, or Infinity', (x) => countOrZero(x) || x === Infinity],
  pageSize: POSITIVE,
  pageBytes: BOUND,
  maxPageBytes: BOUND,
  signatures: ["'verify', 'require' or false", (x) => x === 'verify' || x === 'require' || x === false],
  wireVersions: ['an array of positive integers', (x) => Array.isArray(x) && x.every(positiveInt)],
  antiEntropyInterval: ['a number of ms, 0 or more (0 disables)', nonNegative],
  scope: FUNCTION,
  retention: { shape: { ops: ['a count of ops, 0 or more, or Infinity', (x) => countOrZero(x) || x === Infinity], days: ['a number of days, 0 or more', nonNegative] } },
  maxSkew: ['a number of ms, 0 or more (Infinity disables)', nonNegative],
  log: { shape: { rollAfter: POSITIVE, segmentOps: BOUND, lines: BOOLEAN } },
  signLate: BOOLEAN,
  hooks: { shape: { ...HOOKS, beforeConnect: FUNCTION, beforeBootstrap: FUNCTION } },
};

/** A Backend's methods it cannot do without: an object lacking one had failed open() with a bare TypeError. */
const BACKEND_METHODS = ['read', 'write', 'overwrite', 'remove', 'list', 'mkdir', 'exists'] as const;
const isBackend = (x: unknown) => isObject(x) && BACKEND_METHODS.every((m) => isFunction((x as Record<string, unknown>)[m]));
/** Anything: the value is checked where it is read (createSchema); the shape catches a misspelt key. */
const ANY: OptionRule = ['', () => true];
const TELEMETRY_KEYS = ['tracerProvider', 'meterProvider'];

const OPEN: OptionShape = {
  path: ['a non-empty string: open({ path: "data" })', (x) => typeof x === 'string' && x.length > 0],
  backend: [`'fs', 'memory' or a Backend object (with ${BACKEND_METHODS.join(', ')})`, (x) => x === 'fs' || x === 'memory' || isBackend(x)],
  actor: ['a string, or a function returning one', (x) => typeof x === 'string' || isFunction(x)],
  schema: { shape: { version: ANY, types: ANY, typeField: ANY, ahead: ANY, maxAhead: ANY } },
  durable: BOOLEAN,
  hooks: { shape: HOOKS },
  telemetry: ['false or { tracerProvider?, meterProvider? }', (x) => x === false || (isObject(x) && Object.keys(x as object).every((k) => TELEMETRY_KEYS.includes(k)))],
  sync: { shape: SYNC },
  now: FUNCTION,
};

/** How a wrong value reads in a message: its type, and the value itself when short. */
function shown(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'string') return x.length <= 40 ? `the string ${JSON.stringify(x)}` : 'a string';
  if (typeof x === 'object') return 'an object';
  return typeof x === 'number' || typeof x === 'boolean' ? `${typeof x} ${String(x)}` : typeof x;
}

/** The known key nearest `key` (a typo's likely meaning): same letters but one or two, or the same lowercased. */
export function nearest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = k.toLowerCase() === lower ? 0 : distance(lower, k.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours), for short option names. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * Check an options object against `shape`, by name and type: an unknown key
 * (with the known one it most likely meant) or a value its rule refuses is
 * INVALID_ARGUMENT naming the option (`option`, dotted from the top),
 * `caller` heading the message. A key set to undefined is no option. Framework
 * modules (syncom-nest) check their own options with it, as open() does.
 *
 * @throws SyncomError INVALID_ARGUMENT.
 */
export function checkOptionShape(value: Record<string, unknown>, shape: OptionShape, caller: string, at = ''): void {
  const refuse = (name: string, message: string): never => {
    throw new SyncomError('INVALID_ARGUMENT', `${caller}: ${message}`, { option: name });
  };
  const known = Object.keys(shape);
  for (const [key, x] of Object.entries(value)) {
    const name = `${at}${key}`;
    const rule = shape[key];
    if (rule === undefined) {
      const near = nearest(key, known);
      refuse(name, `unknown option ${name}${near ? ` (did you mean ${near}?)` : ''}; ${at ? `${at.slice(0, -1)} takes` : 'the options are'} ${known.join(', ')}`);
    }
    if (x === undefined) continue;
    if ('shape' in rule) {
      if (!isObject(x)) refuse(name, `${name} must be an object, not ${shown(x)}`);
      checkOptionShape(x as Record<string, unknown>, rule.shape, caller, `${name}.`);
    } else if (!rule[1](x)) {
      refuse(name, `${name} must be ${rule[0]}, not ${shown(x)}`);
    }
  }
}

/** The names open() takes at its top level. */
export const OPEN_OPTION_KEYS: readonly string[] = Object.keys(OPEN);

/**
 * open()'s options checked before anything is opened: every key known, every
 * value of its type. A wrong type had been taken as it came: `durable:
 * "true"` (what a config service reads from an .env file) fsynced the record
 * files and not the log, a `scope` that is no function failed every write
 * with a bare TypeError, and a misspelt option (`durabel`) was ignored.
 *
 * @throws SyncomError INVALID_ARGUMENT naming the option (`option`).
 */
export function checkOpenOptions(options: OpenOptions): void {
  if (!isObject(options)) throw new SyncomError('INVALID_ARGUMENT', 'open() takes an options object: open({ path })');
  if ((options as { path?: unknown }).path === undefined) throw new SyncomError('INVALID_ARGUMENT', 'open() needs a path: open({ path: "data" })', { option: 'path' });
  checkOptionShape(options as unknown as Record<string, unknown>, OPEN, 'open()');
}

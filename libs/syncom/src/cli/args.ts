import { isScopeName } from '../op/scope-name';
import { urlLabel } from '../telemetry/url-label';
import { CliError } from './io';

/** The commands, each with the options it takes. */
export const COMMANDS = {
  info: ['json'],
  verify: ['json'],
  export: ['all', 'sealed'],
  log: ['from', 'limit', 'json'],
  pull: ['hub', 'token', 'timeout', 'scopes'],
} as const;

/** info, verify, export, log or pull. */
export type CommandName = keyof typeof COMMANDS;

/** A parsed command line. */
export interface CliArgs {
  command?: CommandName;
  path?: string;
  help: boolean;
  json: boolean;
  /** export: tombstones and purge markers too. */
  all: boolean;
  /** export: sealed records decrypted (needs the storage's keys/seal-private.pem). */
  sealed: boolean;
  /** log: the first event id (or position) shown. */
  from?: string;
  /** log: at most this many ops. */
  limit?: number;
  /** pull: the hub's url (its /syncom namespace). */
  hub?: string;
  /** pull: the token to present at hello. */
  token?: string;
  /** pull: give up after this many seconds (default 120). */
  timeout?: number;
  /** pull: the scopes to greet with (`Doc,Note`), as a token bound to scopes must (default every scope). */
  scopes?: string[];
}

const FLAGS = new Set(['json', 'all', 'sealed']);
const VALUED = new Set(['from', 'limit', 'hub', 'token', 'timeout', 'scopes']);

/** --scopes: names separated by commas, each a scope name (isScopeName). */
function scopeList(value: string): string[] {
  const scopes = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = scopes.find((s) => !isScopeName(s));
  if (scopes.length === 0 || bad !== undefined) throw new CliError(`--scopes takes scope names separated by commas${bad === undefined ? '' : `, not ${JSON.stringify(bad)}`}`);
  return scopes;
}

/**
 * --hub: a url as WHATWG URL reads it (its scheme the link's to judge). One that does not parse (a bracket left
 * open, a port past 65535) reached no host and set no error: pull waited out --timeout and could say nothing.
 * Named without its user info, query and fragment (urlLabel), which may hold credentials.
 */
function hubUrl(value: string): string {
  try {
    new URL(value);
    return value;
  } catch {
    throw new CliError(`--hub takes a url (http://127.0.0.1:8000/syncom), not ${JSON.stringify(urlLabel(value))}`);
  }
}

function parseLimit(value: string, name = 'limit'): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new CliError(`--${name} takes a positive integer, not ${JSON.stringify(value)}`);
  return n;
}

/** Take one `--name` or `--name=value` (its value may be the next argument); returns how many arguments it used. */
function takeOption(args: CliArgs, argv: readonly string[], i: number): number {
  const eq = argv[i].indexOf('=');
  const name = argv[i].slice(2, eq < 0 ? undefined : eq);
  if (FLAGS.has(name)) {
    if (eq >= 0) throw new CliError(`--${name} takes no value`);
    args[name as 'json' | 'all' | 'sealed'] = true;
    return 1;
  }
  if (!VALUED.has(name)) throw new CliError(`unknown option ${argv[i]}`);
  const value = eq >= 0 ? argv[i].slice(eq + 1) : argv[i + 1];
  if (value === undefined || value === '') throw new CliError(`--${name} needs a value`);
  if (name === 'from' || name === 'token') args[name] = value;
  else if (name === 'hub') args.hub = hubUrl(value);
  else if (name === 'scopes') args.scopes = scopeList(value);
  else if (name === 'limit') args.limit = parseLimit(value);
  else args.timeout = parseLimit(value, 'timeout');
  return eq >= 0 ? 1 : 2;
}

/** Options given to a command that does not take them are a usage error, not silently ignored. */
function checkOptions(args: CliArgs): void {
  if (!args.command) return;
  const allowed: readonly string[] = COMMANDS[args.command];
  for (const name of ['json', 'all', 'sealed', 'from', 'limit', 'hub', 'token', 'timeout', 'scopes'] as const) {
    const given = args[name] !== undefined && args[name] !== false;
    if (given && !allowed.includes(name)) throw new CliError(`${args.command} takes no --${name}`);
  }
}

/**
 * Parse `<command> <path> [options]` (options may come anywhere). No
 * dependency: the surface is five commands and eight options.
 *
 * @throws CliError (exit 2) for an unknown command or option, or a missing value.
 */
export function parseArgs(argv: readonly string[]): CliArgs {
  const args: CliArgs = { help: false, json: false, all: false, sealed: false };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; ) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { args.help = true; i++; continue; }
    if (a.startsWith('--')) { i += takeOption(args, argv, i); continue; }
    if (a.startsWith('-') && a !== '-') throw new CliError(`unknown option ${a}`);
    positional.push(a);
    i++;
  }
  const [command, path, ...extra] = positional;
  if (command === 'help') return { ...args, help: true };
  // Own keys only: `in` found `constructor` and `toString` on Object.prototype, and ran `log` for them.
  if (command !== undefined && !Object.hasOwn(COMMANDS, command)) throw new CliError(`unknown command ${JSON.stringify(command)}`);
  if (extra.length) throw new CliError(`one storage path at a time; unexpected ${JSON.stringify(extra[0])}`);
  Object.assign(args, { command: command as CommandName | undefined, path });
  checkOptions(args);
  return args;
}

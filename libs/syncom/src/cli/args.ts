import { CliError } from './io';

/** The commands, each with the options it takes. */
export const COMMANDS = {
  info: ['json'],
  verify: ['json'],
  export: ['all', 'sealed'],
  log: ['from', 'limit', 'json'],
} as const;

/** info, verify, export or log. */
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
}

const FLAGS = new Set(['json', 'all', 'sealed']);
const VALUED = new Set(['from', 'limit']);

function parseLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new CliError(`--limit takes a positive integer, not ${JSON.stringify(value)}`);
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
  if (name === 'from') args.from = value;
  else args.limit = parseLimit(value);
  return eq >= 0 ? 1 : 2;
}

/** Options given to a command that does not take them are a usage error, not silently ignored. */
function checkOptions(args: CliArgs): void {
  if (!args.command) return;
  const allowed: readonly string[] = COMMANDS[args.command];
  for (const name of ['json', 'all', 'sealed', 'from', 'limit'] as const) {
    const given = args[name] !== undefined && args[name] !== false;
    if (given && !allowed.includes(name)) throw new CliError(`${args.command} takes no --${name}`);
  }
}

/**
 * Parse `<command> <path> [options]` (options may come anywhere). No
 * dependency: the surface is four commands and five options.
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
  if (command !== undefined && !(command in COMMANDS)) throw new CliError(`unknown command ${JSON.stringify(command)}`);
  if (extra.length) throw new CliError(`one storage path at a time; unexpected ${JSON.stringify(extra[0])}`);
  Object.assign(args, { command: command as CommandName | undefined, path });
  checkOptions(args);
  return args;
}

import type { LoadOptions } from './run-load';

export const USAGE = `usage: npm run load -- [--peers N] [--seconds S] [--writes W] [--full F] [--ramp R] [--sample S] [--settle S]
  --peers N     socket.io peers on the one hub (default 200)
  --seconds S   length of the write window (default 30)
  --writes W    writes per peer in the window (default 5)
  --rate R      writes per second offered by all peers together, instead of --writes
                (R x seconds writes spread evenly over the peers)
  --procs N     run the raw peers in N child processes and the full ones in one more
                (default 0: all in the tool's process)
  --full F      how many peers are full syncom storages, compared record for record with
                the hub (default: all up to 200 peers, else 20); the others are raw protocol peers
  --ramp R      peers connecting at once (default 50)
  --sample S    seconds between samples of the hub's RSS and event-loop delay (default 1)
  --settle S    bound on the wait for every peer to converge after the window (default 180)
  --json FILE   also write everything measured as JSON to FILE
  --out FILE    write the headline figures as JSON to FILE: peers, writes offered and
                acknowledged, delivery p50/p99/max (ms), hub event-loop p99 (ms), hub CPU,
                hub RSS peak and after (MB), lost writes`;

/** The command line of `npm run load`, parsed. */
export interface LoadArgs extends LoadOptions {
  json?: string;
  out?: string;
  help: boolean;
}

const NUMBERS = ['peers', 'seconds', 'writes', 'rate', 'procs', 'full', 'ramp', 'sample', 'settle'] as const;
const FILES = ['json', 'out'];

/**
 * Parse `--name value` pairs (after the script name).
 * @throws TypeError for an unknown option, a missing value, or a number out of range.
 */
export function parseLoadArgs(argv: readonly string[]): LoadArgs {
  const given: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') return { ...defaults(200), help: true };
    const name = a.startsWith('--') ? a.slice(2) : '';
    if (!(NUMBERS as readonly string[]).includes(name) && !FILES.includes(name)) throw new TypeError(`unknown option ${a}\n${USAGE}`);
    const value = argv[++i];
    if (value === undefined) throw new TypeError(`${a} needs a value\n${USAGE}`);
    given[name] = value;
  }
  const args: LoadArgs = { ...defaults(Number(given.peers ?? 200)), help: false, ...(given.json && { json: given.json }), ...(given.out && { out: given.out }) };
  for (const name of NUMBERS) {
    if (given[name] === undefined) continue;
    const n = Number(given[name]);
    if (!(n >= 0) || !Number.isFinite(n)) throw new TypeError(`--${name} takes a number, not ${given[name]}`);
    args[name] = n;
  }
  if (args.procs !== undefined && !Number.isInteger(args.procs)) throw new TypeError(`--procs takes a whole number\n${USAGE}`);
  if (args.peers < 1 || args.full > args.peers || args.ramp < 1 || args.sample <= 0) throw new TypeError(`out of range\n${USAGE}`);
  return args;
}

function defaults(peers: number): LoadOptions {
  return { peers, seconds: 30, writes: 5, full: peers <= 200 ? peers : 20, ramp: 50, sample: 1, settle: 180 };
}

/** What `npm run bench -- ...` asked for. */
export interface Args {
  quick: boolean;
  /** Substrings; a benchmark runs when its name contains one of them (all run when empty). */
  filters: string[];
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [--quick] [--filter <substring>]...
  --quick              fewer ops per run (under 2 minutes)
  --filter <text>      only benchmarks whose name contains <text> (repeatable);
                       the baselines they are compared with run too`;

/**
 * Parse the command line (after the script name).
 *
 * @throws TypeError for an unknown option or a --filter without a value.
 */
export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { quick: false, filters: [], help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') args.quick = true;
    else if (a === '--help' || a === '-h') args.help = true;
    else if (a === '--filter' || a.startsWith('--filter=')) {
      const value = a === '--filter' ? argv[++i] : a.slice('--filter='.length);
      if (!value) throw new TypeError('--filter needs a substring: --filter insert');
      args.filters.push(value);
    } else throw new TypeError(`unknown option ${a}\n${USAGE}`);
  }
  return args;
}

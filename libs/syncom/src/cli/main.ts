#!/usr/bin/env node
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { lockHolder } from '../backend/fs-lock';
import { isSyncomError } from '../errors';
import { type CliArgs, parseArgs } from './args';
import { exportCommand } from './export';
import { infoCommand } from './info';
import { CliError, type CliIo, EXIT_FAULTS, EXIT_OK, EXIT_USAGE, printable } from './io';
import { logCommand } from './log';
import { type PullConnect, pullCommand } from './pull';
import { verifyCommand } from './verify';

/** The usage text of `syncom --help`. */
export const USAGE = `usage: syncom <command> <path> [options]

Inspect a syncom storage directory (nothing in it is changed; one another
process has open is read as it is at that moment), or pull one from a hub.

commands:
  info <path>      id, epoch, floor, vector, segments, records, registered nodes
                   (cursor, and lag: own ops a node has not acknowledged)
  verify <path>    check every op in the log: signature, digest, per-stream seq,
                   positions, the audit chain against index.json; the record
                   files against the log; the registry files
  export <path>    every record as one JSON line { id, data, meta }, in id order
  log <path>       the ops of the log, one line each
  pull <path>      sync this storage (created if absent) with a hub until it
                   holds what the hub holds; a first contact bootstraps, with
                   a progress bar (this command writes; it needs socket.io-client,
                   and fails with LOCKED while another process has the storage open)

options:
  --json           info, verify, log: JSON instead of text
  --all            export: tombstones and purge markers too (data null)
  --sealed         export: sealed records decrypted (else { id, data: null,
                   meta: { sealed: true } })
  --from <id>      log: start at this event id (inclusive), or a position
  --limit <n>      log: at most n ops
  --hub <url>      pull: the hub, e.g. http://127.0.0.1:8000/syncom
  --token <t>      pull: the token the hub expects at hello
  --timeout <s>    pull: give up after s seconds (default 120)
  --scopes <a,b>   pull: the scopes to greet with (a token bound to scopes
                   may claim only those; default every scope)
  -h, --help       this text

exit codes: 0 ok, 1 faults found (or a damaged storage), 2 usage error or
not a storage.
`;

/** What a test may inject: the link pull dials with. */
export interface CliDeps {
  connect?: PullConnect;
}

/**
 * Say so when a live process holds the storage: the read-only commands read
 * it all the same (they take no lock), and what they see may change under them.
 */
async function noteHolder(path: string, io: CliIo): Promise<void> {
  const holder = await lockHolder(resolve(path)).catch(() => undefined);
  if (holder) io.stderr.write(`syncom: note: ${path} is open in process ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}; this reads it as it is now, while it may change\n`);
}

async function run(args: CliArgs, io: CliIo, deps: CliDeps): Promise<number> {
  const path = args.path as string;
  // pull opens the storage itself: a held one fails there with LOCKED.
  if (args.command !== 'pull') await noteHolder(path, io);
  switch (args.command) {
    case 'pull': return pullCommand(path, { hub: args.hub as string, token: args.token, scopes: args.scopes, timeoutMs: (args.timeout ?? 120) * 1000, connect: deps.connect }, io);
    case 'info': return infoCommand(path, args.json, io);
    case 'verify': return verifyCommand(path, args.json, io);
    case 'export': return exportCommand(path, { all: args.all, sealed: args.sealed }, io);
    default: return logCommand(path, { from: args.from, limit: args.limit, json: args.json }, io);
  }
}

/**
 * Run the CLI on `argv` (the arguments after the program name) and return
 * its exit code: 0 ok, 1 faults found, 2 usage error or not a storage. Never
 * throws: every failure is a message on `io.stderr`.
 *
 * @example
 * const code = await runCli(['info', 'data'], { stdout: process.stdout, stderr: process.stderr });
 */
export async function runCli(argv: readonly string[], io: CliIo, deps: CliDeps = {}): Promise<number> {
  let args: CliArgs;
  try {
    args = parseArgs(argv);
    if (!args.help && !args.command) throw new CliError('a command is needed: info, verify, export, log or pull');
    if (!args.help && !args.path) throw new CliError(`${args.command} needs the path of a storage directory`);
    if (!args.help && args.command === 'pull' && !args.hub) throw new CliError('pull needs --hub <url>');
  } catch (e) {
    io.stderr.write(`syncom: ${(e as Error).message}\nsyncom --help shows the commands and options\n`);
    return EXIT_USAGE;
  }
  if (args.help) { io.stdout.write(USAGE); return EXIT_OK; }
  const out: CliIo = { stdout: printable(io.stdout), stderr: printable(io.stderr) };
  try {
    return await run(args, out, deps);
  } catch (e) {
    if (e instanceof CliError) {
      out.stderr.write(`syncom: ${e.message}\n`);
      return e.exitCode;
    }
    // An engine error met on a damaged storage (a key file that is no key, ...), or a storage
    // another process holds (LOCKED, for pull): a fault, with its code.
    const what = isSyncomError(e) ? `${e.code}: ${e.message}` : ((e as Error)?.stack ?? String(e));
    out.stderr.write(`syncom: ${what}\n`);
    return EXIT_FAULTS;
  }
}

/** Run the CLI as a process: argv, stdout and stderr, and its exit code (bin/syncom.js calls this, with the transport pull dials over). */
export function main(deps: CliDeps = {}): void {
  void runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }, deps).then((code) => {
    // exitCode, not exit(): stdout may still be draining into a pipe.
    process.exitCode = code;
  });
}

if (require.main === module) main();

import { readdir } from 'node:fs/promises';
import { open } from '../open';
import type { Storage } from '../storage/storage';
import type { SyncLink } from '../link/contract';
import { CliError, type CliIo, EXIT_FAULTS, EXIT_OK } from './io';
import { createProgress, type Progress } from './progress';
import { urlLabel } from '../telemetry/url-label';
import { hideTokens } from '../telemetry/hidden-tokens';
import { MAX_TIMER_MS } from '../sync/dial/options';

/** How `pull` reaches a hub: by default the engine's socket.io link (syncom/socket.io, with socket.io-client installed beside syncom). */
export type PullConnect = (node: { url: string; token?: string }) => SyncLink | Promise<SyncLink>;

/** pull's options. */
export interface PullOptions {
  hub: string;
  token?: string;
  /** The scopes to greet with (a token bound to scopes may claim only those); default every scope. */
  scopes?: string[];
  timeoutMs: number;
  connect?: PullConnect;
}

/** Whether the hub's feed has given this node everything the hub held at its last answer. */
function caughtUp(storage: Storage, url: string): boolean {
  const p = storage.sync.peers().find((x) => x.url === url);
  return !!p && p.connected && p.subscribed && !p.bootstrapping && p.incoming === 0 && p.pending === 0;
}

/**
 * What the dialer last met, for the timeout's message (as synced() names it): a hub that is down, answers
 * junk or fails every call had ended pull with only "not caught up", the reason left unsaid. A hub words
 * its refusals as it likes and may quote the token it was sent: written `<token>`, as the hub's log does.
 */
function lastErrorOf(storage: Storage, url: string, token?: string): string {
  const last = storage.sync.peers().find((x) => x.url === url)?.lastError;
  return last ? `; its last error: ${last.code}${last.status === undefined ? '' : ` ${last.status}`}: ${hideTokens(last.message, [token ?? '']).slice(0, 200)}` : '';
}

/**
 * What to check when the hub refuses this node (401, 403): the hub's answer is the same for a wrong token
 * and for a right one bound to scopes that pull greets beyond (docs/hub-security.md, Scopes).
 */
function refusedHint(scoped: boolean): string {
  return scoped ? 'check --token and --scopes (the scopes this token may claim)' : 'check --token (a token bound to scopes pulls with --scopes naming them)';
}

/** Resolves once caught up; bootstrap progress goes to a bar on stderr. */
function follow(storage: Storage, url: string, io: CliIo, o: { timeoutMs: number; token?: string; scoped: boolean }): Promise<{ bootstrapped?: number }> {
  const { timeoutMs, token, scoped } = o;
  return new Promise((resolve, reject) => {
    const seen: { bootstrapped?: number } = {};
    let bar: Progress | undefined;
    const offs: (() => void)[] = [];
    const end = (e?: Error) => { clearTimeout(timer); clearInterval(poll); offs.forEach((o) => o()); bar?.finish(); e ? reject(e) : resolve(seen); };
    // A longer --timeout waits the longest a timer holds (about 24.8 days), as synced() does: Node fires one past it at once.
    const timer = setTimeout(() => end(new CliError(`not caught up with ${urlLabel(url)} within ${timeoutMs / 1000} s${lastErrorOf(storage, url, token)}`, EXIT_FAULTS)), Math.min(timeoutMs, MAX_TIMER_MS));
    const check = () => { if (caughtUp(storage, url)) end(); };
    offs.push(storage.sync.on('progress', (p) => {
      bar ??= createProgress(io.stderr, 'bootstrap', p.total ?? p.received, { redrawMs: 50, lineMs: 1000 });
      bar.update(p.received);
    }));
    offs.push(storage.sync.on('bootstrap', (b) => { seen.bootstrapped = b.records; check(); }));
    offs.push(storage.sync.on('error', (e) => {
      if (e.status === 401 || e.status === 403) end(new CliError(`${urlLabel(url)} refused this node: ${e.code}: ${refusedHint(scoped)}`, EXIT_FAULTS));
      // The dialer stops for good on these: waiting out the timeout would only hide why.
      else if (e.code === 'SELF_DIAL') end(new CliError(`${e.code}: ${e.message}`, EXIT_FAULTS));
    }));
    offs.push(storage.sync.on('incompatible', (e) => {
      if (e.peer === url) end(new CliError(`INCOMPATIBLE: ${urlLabel(url)} shares no wire version with this syncom (it speaks ${e.versions.join(', ') || 'none it names'})`, EXIT_FAULTS));
    }));
    for (const ev of ['sync', 'peer'] as const) offs.push(storage.sync.on(ev, check));
    offs.push(storage.on('change', check));
    // Caught up with no event to tell it (a store that pulled before, nothing new since: the dialer's state settles
    // with no event past the ones above), a second pull waited out its timeout and exited 1: looked at twice a second too.
    const poll = setInterval(check, 500);
    check();
  });
}

/**
 * The target is new, empty, or a store that pulled from `hub` before (the
 * refresh of a backup); a directory holding anything else was written
 * into, and another node's store got the hub's records and its token.
 * @throws CliError (usage, exit 2) naming what is there.
 */
async function checkTarget(path: string): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(path);
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return false;
    if ((e as { code?: unknown }).code === 'ENOTDIR') throw new CliError(`${path} is a file: pull into a new or empty directory`);
    throw e;
  }
  if (names.length > 0 && !names.includes('format.json') && !names.includes('log')) throw new CliError(`${path} is not empty and holds no store: pull into a new or empty directory`);
  return names.length > 0;
}

/**
 * `syncom pull <path> --hub <url>`: open (or create) the storage, register the
 * hub, and sync until this node holds what the hub held — a first contact
 * bootstraps, with its progress on stderr. The storage is a node of its own
 * from then on (its id, its keys), like any dialer.
 */
export async function pullCommand(path: string, o: PullOptions, io: CliIo): Promise<number> {
  // The engine names no transport (LINK-1): the launcher (bin/syncom.js) hands pull the socket.io link.
  const connect = o.connect;
  if (!connect) throw new CliError('pull dials a hub over socket.io: install socket.io-client beside syncom (npm install socket.io-client)');
  const existed = await checkTarget(path);
  const storage = await open({ path, sync: { connect } });
  try {
    const known = storage.sync.listNodes().find((n) => n.url === o.hub);
    if (existed && !known) throw new CliError(`${path} holds a store that never pulled from ${urlLabel(o.hub)}: pull into a new or empty directory`);
    const scopes = o.scopes ?? ['*'];
    if (!known || known.token !== o.token || known.scopes.join(',') !== scopes.join(',')) await storage.sync.addNode({ url: o.hub, token: o.token, scopes });
    const seen = await follow(storage, o.hub, io, { timeoutMs: o.timeoutMs, token: o.token, scoped: o.scopes !== undefined });
    // One reconciliation with the hub before saying caught up: a snapshot that ended before its total (a hub that
    // broke, or lied) had been taken for the hub's whole state, exit 0, and a later pull found nothing to fetch.
    await storage.sync.forceSync();
    const records = (await storage.list()).length;
    // A snapshot carries every entry, tombstones and purge markers included; list() shows live records only.
    const how = seen.bootstrapped === undefined ? 'caught up' : `bootstrapped ${seen.bootstrapped} entries (tombstones and purge markers included)`;
    io.stdout.write(`${how} from ${urlLabel(o.hub)}; ${records} live records in ${path}\n`);
    return EXIT_OK;
  } finally {
    await storage.close();
  }
}

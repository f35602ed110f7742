import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ioError, SyncomError } from '../errors';
import { type BackendLock, type LockHolder, lockedError } from './lock';
import { errorCode, makeFolders, readRegularFile } from './fs-errors';
import { DIR_MODE, FILE_MODE } from './fs-modes';

/** The lock file at a storage's root. */
export const LOCK_FILE = 'LOCK';

/** Attempts to take a lock whose holder is gone while others race for it; then LOCKED. */
const ATTEMPTS = 20;
/** A takeover guards its removal with a lock of its own; a dead guard is taken over the same way, this deep at most. */
const MAX_DEPTH = 3;

/** The tokens this process holds: a lock file naming this process and another token is a leftover. */
const heldHere = new Set<string>();

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A process's start time in clock ticks since boot (Linux /proc); undefined elsewhere. */
function processStart(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: count the fields after its last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

let self: Omit<LockHolder, 'token'> | undefined;

/** This process as a lock file names it. */
function identity(): Omit<LockHolder, 'token'> {
  self ??= { pid: process.pid, host: hostname(), start: processStart(process.pid), boot: readProc('/proc/sys/kernel/random/boot_id')?.trim() };
  return self;
}

/** The holder a lock file names, or undefined for a file that is no lock. */
export function parseHolder(text: string | undefined): LockHolder | undefined {
  try {
    const h = JSON.parse(text ?? '') as Partial<LockHolder>;
    const ok = Number.isSafeInteger(h.pid) && (h.pid as number) > 0 && typeof h.host === 'string'
      && typeof h.token === 'string' && /^[0-9a-f]{32}$/.test(h.token)
      && (h.start === undefined || typeof h.start === 'string') && (h.boot === undefined || typeof h.boot === 'string');
    return ok ? (h as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a pid names a live process (EPERM: alive, someone else's). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === 'EPERM';
  }
}

/**
 * Whether the holder may still be using the storage. Another machine's
 * process cannot be seen: it counts as alive. A pid reused by a later process
 * is told apart by its start time and boot where /proc has them.
 */
export function holderAlive(h: LockHolder): boolean {
  const me = identity();
  if (h.host !== me.host) return true;
  if (h.boot !== undefined && me.boot !== undefined && h.boot !== me.boot) return false;
  if (h.pid === me.pid && h.start === me.start) return heldHere.has(h.token);
  if (!pidAlive(h.pid)) return false;
  const start = processStart(h.pid);
  return start === undefined || h.start === undefined || start === h.start;
}

/**
 * Whether the holder is for sure a live process of this machine: its pid
 * alive with the start time (and boot) its LOCK names, where /proc tells
 * them. holderAlive counts a LOCK without a start time as alive, to never
 * take a lock from a writer; `syncom verify` must not let such a LOCK, one
 * written by hand naming pid 1, switch its records check off. Without /proc
 * (macOS, Windows) a live pid of this host is all there is to go by.
 */
export function holderProven(h: LockHolder): boolean {
  const me = identity();
  if (h.host !== me.host || !pidAlive(h.pid)) return false;
  if (me.start === undefined) return true;
  return h.start !== undefined && processStart(h.pid) === h.start && (h.boot === undefined || h.boot === me.boot);
}

/**
 * Create `file` holding `text`, only if it does not exist: the text goes to a
 * temp file linked into place, so no reader ever sees a half-written lock.
 * A filesystem without hard links gets an exclusive create ('wx') instead.
 */
async function createExclusive(file: string, text: string): Promise<boolean> {
  const temp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  await writeFile(temp, text, { flag: 'wx', mode: FILE_MODE });
  try {
    await link(temp, file);
    return true;
  } catch (e) {
    if (errorCode(e) === 'EEXIST') return false;
    return writeFile(file, text, { flag: 'wx', mode: FILE_MODE }).then(() => true, (e2: unknown) => {
      if (errorCode(e2) === 'EEXIST') return false;
      throw e2;
    });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The lock file's text; undefined when absent. Any other failure (a directory in its place) is IO_ERROR naming the path. */
async function readOrUndefined(file: string): Promise<string | undefined> {
  return readRegularFile(file).catch((e: unknown) => {
    throw ioError(file, e);
  });
}

/** Remove `file` if it still holds `token`; only the token's owner or the one guarded takeover of it removes it. */
async function removeIf(file: string, token: string): Promise<void> {
  if (parseHolder(await readOrUndefined(file))?.token !== token) return;
  await unlink(file).catch((e: unknown) => {
    if (errorCode(e) !== 'ENOENT') throw e;
  });
}

/**
 * Remove a lock whose holder is gone. Several processes may judge it stale at
 * once: each first takes the guard named for the dead holder's token, so one
 * alone removes it, and only while it still names that token (a fresh lock
 * taken meanwhile is never removed). Returns false when another process holds
 * the guard, i.e. is taking it over right now.
 */
async function removeStale(file: string, stale: LockHolder, text: string, depth: number): Promise<boolean> {
  const guard = `${file}.${stale.token}`;
  const mine = parseHolder(text)?.token as string;
  if (await take(guard, text, depth + 1)) return false;
  try {
    await removeIf(file, stale.token);
  } finally {
    await removeIf(guard, mine);
  }
  return true;
}

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 20)));

/** Take `file`: undefined once taken, else the live holder met. */
async function take(file: string, text: string, depth: number): Promise<LockHolder | undefined> {
  let last: LockHolder | undefined;
  for (let i = 0; i < ATTEMPTS; i++) {
    if (await createExclusive(file, text)) return undefined;
    const raw = await readOrUndefined(file);
    if (raw === undefined) continue;
    const h = parseHolder(raw);
    // Where there are no hard links the lock is created empty, then written: give its writer a moment.
    if (!h && i < ATTEMPTS - 1) { await pause(); continue; }
    if (!h) throw new SyncomError('LOCKED', `${file} is no lock file syncom wrote; if no process uses this storage, remove it`, { status: 423, path: file });
    last = h;
    if (holderAlive(h) || depth >= MAX_DEPTH) return h;
    if (!(await removeStale(file, h, text, depth))) await pause();
  }
  if (last) return last;
  throw new SyncomError('LOCKED', `${file} kept changing hands while this process tried to take it; try again`, { status: 423, path: file });
}

/**
 * Take the exclusive lock of the storage at `root` (`<root>/LOCK`): one open
 * storage per path, in this process or another. A lock whose holder is gone
 * (a killed process) is taken over; close() releases it.
 *
 * @throws SyncomError LOCKED (status 423) naming the path and the holder's pid.
 */
export async function lockDirectory(root: string): Promise<BackendLock> {
  // A file where the folder belongs, or a folder that cannot be made (EEXIST, ENOTDIR, EACCES, EROFS): IO_ERROR naming
  // it, as the backend's own reads and mkdirs say it; it was the bare OS error, no code for an app (a Nest start) to tell.
  await makeFolders(root, DIR_MODE);
  const file = join(root, LOCK_FILE);
  const me = { ...identity(), token: randomBytes(16).toString('hex') };
  const text = `${JSON.stringify(me)}\n`;
  // Held before the file exists: a concurrent open() in this process then sees a live holder, not a leftover.
  heldHere.add(me.token);
  const holder = await take(file, text, 0).catch((e: unknown) => { heldHere.delete(me.token); throw ioError(file, e); });
  if (holder) {
    heldHere.delete(me.token);
    throw lockedError(root, holder, me);
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(me.token);
      await removeIf(file, me.token);
    },
  };
}

/** Who holds the storage at `root` now, if a live process does (the CLI says so before it reads a store in use). */
export async function lockHolder(root: string): Promise<LockHolder | undefined> {
  const h = parseHolder(await readOrUndefined(join(root, LOCK_FILE)).catch(() => undefined));
  return h && holderAlive(h) ? h : undefined;
}

import { resolve } from 'node:path';
import { open, type OpenOptions, type Storage, SyncomError } from 'syncom';

/**
 * A store SyncomModule opened, for which app (its ModulesContainer), and
 * whether that app started. Nest runs no hook for an app whose start failed
 * (NestFactory.create, compile() or init() rejected): until its module's
 * onApplicationBootstrap, a store may be an orphan nothing can reach or close,
 * holding its lock and dialing its hubs.
 */
interface Held {
  readonly path: string;
  readonly app: object;
  /** Runs before a take-over closes the store (the module's sync logger stops: a take-over is no hub lost). */
  readonly quiet?: () => void;
  /** open()'s outcome, undefined when it failed. */
  readonly opening: Promise<Storage | undefined>;
  storage?: Storage;
  started: boolean;
  /** A later start on its path closed it before its app started. */
  takenOver: boolean;
}

/** This process's stores from SyncomModule that are open or opening. */
const held = new Set<Held>();
const byStorage = new WeakMap<Storage, Held>();

/**
 * open() for a SyncomModule of `app`. A LOCKED path whose holder is a store
 * SyncomModule opened in this process for an app that never started is an
 * orphan of a failed start, or of this very start (two modules of one app on
 * one path): it is closed, and this start takes the path, or fails LOCKED
 * when the holder was its own app's. A started app's store is never touched.
 *
 * @throws SyncomError LOCKED while a started app (or another process) holds the path, or another module of this app; what open() throws.
 */
export async function openHeld(options: OpenOptions, app: object, quiet?: () => void): Promise<Storage> {
  // open() refuses a path that is no string (INVALID_ARGUMENT); resolve() would throw a bare TypeError first.
  const path = typeof options.path === 'string' ? resolve(options.path) : String(options.path);
  try {
    return await attempt(options, path, app, quiet);
  } catch (e) {
    const orphans = [...held].filter((h) => h.path === path && !h.started);
    if (!lockedHere(e) || orphans.length === 0) throw e;
    await Promise.all(orphans.map(takeOver));
    // The app this start belongs to holds the path already: it cannot start, and closed its first store above.
    const own = orphans.filter((h) => h.app === app).length;
    if (own > 0) throw sharedPath(path, own + 1, e);
    return attempt(options, path, app, quiet);
  }
}

/**
 * LOCKED for `count` SyncomModules of one app on one path (forRoot imported in a feature module and in
 * the root, say), in words a Nest app can act on: the engine's "close that storage first" names nothing it holds.
 */
function sharedPath(path: string, count: number, cause: unknown): SyncomError {
  return new SyncomError('LOCKED', `${count} SyncomModules of this app open ${path}: call SyncomModule.forRoot once for it (isGlobal: true, or in one module that exports it) and import that module where the store is used`, {
    status: 423, path, pid: process.pid, cause,
  });
}

/**
 * The store's app started (its module's onApplicationBootstrap): from now on
 * only the app's shutdown closes it.
 *
 * @throws SyncomError LOCKED when a later start on its path closed it first: the app would run on a closed store.
 */
export function markStarted(storage: Storage): void {
  const h = byStorage.get(storage);
  if (!h?.takenOver) {
    if (h) h.started = true;
    return;
  }
  throw new SyncomError('LOCKED', `the storage at ${h.path} was closed before this app started: a later SyncomModule start on that path took it over`, {
    status: 423, path: h.path, pid: process.pid,
  });
}

/** The store was closed (the app's shutdown): nothing more to track. */
export function forget(storage: Storage): void {
  const h = byStorage.get(storage);
  if (h) held.delete(h);
}

async function attempt(options: OpenOptions, path: string, app: object, quiet?: () => void): Promise<Storage> {
  // One the app closed itself (storage.close()) is no holder.
  for (const h of held) if (h.storage?.isClosed) held.delete(h);
  // Tracked before open() resolves, so a second module of the same app finds it while it is still opening.
  const opening = open(options);
  const h: Held = { path, app, quiet, opening: opening.catch(() => undefined), started: false, takenOver: false };
  held.add(h);
  try {
    h.storage = await opening;
    byStorage.set(h.storage, h);
    return h.storage;
  } catch (e) {
    held.delete(h);
    throw e;
  }
}

async function takeOver(h: Held): Promise<void> {
  h.takenOver = true;
  held.delete(h);
  const storage = await h.opening;
  h.quiet?.();
  await storage?.close();
}

/** LOCKED by a storage of this process (the engine's error names the holder's pid). */
function lockedHere(e: unknown): boolean {
  const { code, pid } = (e ?? {}) as { code?: unknown; pid?: unknown };
  return code === 'LOCKED' && pid === process.pid;
}

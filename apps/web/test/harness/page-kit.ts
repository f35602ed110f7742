// Runs in the test page (bundled by bundle.ts): small helpers the tests call
// through page.evaluate, so each test reads as a few steps and every wait is
// on an engine event, never a sleep.
import { io } from 'socket.io-client';
import { open, opfsBackend, type Storage } from '../../../../libs/syncom/src/browser';
import { createSocketIoLink } from '../../../../libs/syncom/src/socket.io';
import { internals } from '../../../../libs/syncom/src/testing/internals';
import { untilRecords } from './until-records';

/** A hub as a test page dials it. */
export interface HubRef {
  url: string;
  token: string;
}

/** An error as it crosses page.evaluate: code and message only. */
export interface PageError {
  code: string;
  message: string;
}

/** What a dialer made of the ops it received: the sums of its 'sync' events and the codes of its sync errors. */
export interface Verdicts {
  applied: number;
  forged: number;
  unsigned: number;
  malformed: number;
  errors: string[];
}

interface Held {
  storage: Storage;
  verdicts: Verdicts;
  /** 'bootstrap' events seen (an empty store's first sync is one, of 0 records). */
  bootstraps: number;
  /** Called at each 'sync' event. */
  onSync?: () => void;
}

const held = new Map<string, Held>();

function asError(e: unknown): PageError {
  const err = e as { code?: unknown; message?: unknown };
  return { code: String(err?.code ?? 'UNKNOWN'), message: String(err?.message ?? e) };
}

function take(name: string): Held {
  const h = held.get(name);
  if (!h) throw new Error(`no store ${name} open in this page`);
  return h;
}

/** Told of each failed attempt of a store's sockets to reach its host (untilLinkError). */
const attemptFailed = new Set<() => void>();

/**
 * The socket.io link to a registered node, reconnecting fast (tests stop and restart hubs); WebSocket only
 * unless `transports` says otherwise (undefined in the list: socket.io-client's default, long-polling first).
 */
const connectWith = (transports: OpenAs['transports'] = ['websocket']) => (node: { url: string; token?: string }) => {
  const socket = io(node.url, { auth: { token: node.token }, reconnectionDelay: 50, reconnectionDelayMax: 200, ...(transports.length > 0 && { transports }) });
  socket.on('connect_error', () => setTimeout(() => attemptFailed.forEach((f) => f()), 0));
  return createSocketIoLink(socket);
};

/** How a test opens a store. */
export interface OpenAs {
  hub?: HubRef;
  signatures?: 'verify' | 'require' | false;
  /** Wait for the tab holding the store instead of failing with LOCKED. */
  wait?: boolean;
  /** The socket's transports (default WebSocket only; [] for socket.io-client's own default). */
  transports?: ('polling' | 'websocket')[];
}

/** Opens the store `name` (OPFS directory `name`), registering `hub` when given; the node id, or the error open() threw. */
async function openStore(name: string, o: OpenAs = {}): Promise<{ id: string } | { error: PageError }> {
  try {
    const storage = await open({ path: name, backend: opfsBackend({ dir: name, wait: o.wait }), sync: { connect: connectWith(o.transports), signatures: o.signatures } });
    const h: Held = { storage, bootstraps: 0, verdicts: { applied: 0, forged: 0, unsigned: 0, malformed: 0, errors: [] } };
    storage.sync.on('error', (e) => h.verdicts.errors.push(e.code));
    storage.sync.on('bootstrap', () => h.bootstraps++);
    storage.sync.on('sync', (e) => {
      for (const k of ['applied', 'forged', 'unsigned', 'malformed'] as const) h.verdicts[k] += e[k];
      h.onSync?.();
    });
    held.set(name, h);
    if (o.hub) await storage.sync.addNode({ url: o.hub.url, token: o.hub.token });
    return { id: storage.id };
  } catch (e) {
    return { error: asError(e) };
  }
}

/** Resolves once store `name` holds at least `count` records (until-records.ts). */
const untilCount = (name: string, count: number): Promise<number> => untilRecords(take(name).storage, count);

/** Resolves with the first dialed peer's lastError once it has one, re-checked after each failed attempt to reach it. */
function untilLinkError(name: string): Promise<PageError> {
  const storage = take(name).storage;
  return new Promise((resolve) => {
    const check = () => {
      const e = storage.sync.peers()[0]?.lastError;
      if (!e) return;
      attemptFailed.delete(check);
      resolve(asError(e));
    };
    attemptFailed.add(check);
    check();
  });
}

/** Resolves once `name` has refused (forged, unsigned or malformed) at least `count` ops in all. */
function untilRefused(name: string, count: number): Promise<Verdicts> {
  const h = take(name);
  return new Promise((resolve) => {
    const check = () => {
      const v = h.verdicts;
      if (v.forged + v.unsigned + v.malformed < count) return;
      h.onSync = undefined;
      resolve({ ...v, errors: [...v.errors] });
    };
    h.onSync = check;
    check();
  });
}

type Dir = { entries(): AsyncIterable<[string, { kind: string }]>; getDirectoryHandle(n: string): Promise<Dir> };
type FileHandle = { getFile(): Promise<{ size: number; lastModified: number }>; createWritable(o: { keepExistingData: boolean }): Promise<{ truncate(n: number): Promise<void>; close(): Promise<void> }> };

/** Every file under OPFS directory `name`, with its size and time, in the order the walk met them. */
async function opfsFiles(name: string): Promise<{ path: string; size: number; lastModified: number; handle: FileHandle }[]> {
  const nav = (globalThis as unknown as { navigator: { storage: { getDirectory(): Promise<Dir> } } }).navigator;
  const root = (await nav.storage.getDirectory()).getDirectoryHandle(name);
  const out: { path: string; size: number; lastModified: number; handle: FileHandle }[] = [];
  const walk = async (dir: Dir, prefix: string): Promise<void> => {
    for await (const [n, h] of dir.entries()) {
      if (h.kind === 'directory') await walk(h as unknown as Dir, `${prefix}${n}/`);
      else {
        const f = await (h as unknown as FileHandle).getFile();
        out.push({ path: `${prefix}${n}`, size: f.size, lastModified: f.lastModified, handle: h as unknown as FileHandle });
      }
    }
  };
  await walk(await root, '');
  return out;
}

/**
 * Cuts the newest non-empty file whose path starts with `under`, of store
 * `name` (closed), to `keep` of its size (a fraction): a torn last write, as
 * a crash leaves it. Answers the file, its size and the size left.
 */
async function cutNewest(name: string, keep: number, under = ''): Promise<{ path: string; size: number; cut: number }> {
  const files = (await opfsFiles(name)).filter((f) => f.size > 0 && f.path.startsWith(under));
  if (files.length === 0) throw new Error(`no file to cut under ${name}/${under}`);
  const newest = files.reduce((a, b) => (b.lastModified >= a.lastModified ? b : a));
  const cut = Math.floor(newest.size * keep);
  const w = await newest.handle.createWritable({ keepExistingData: true });
  await w.truncate(cut);
  await w.close();
  return { path: newest.path, size: newest.size, cut };
}

export const kit = {
  /** Removes store `name`'s OPFS directory (the store closed). */
  removeStore: async (name: string) => {
    const nav = (globalThis as unknown as { navigator: { storage: { getDirectory(): Promise<{ removeEntry(n: string, o: { recursive: boolean }): Promise<void> }> } } }).navigator;
    await (await nav.storage.getDirectory()).removeEntry(name, { recursive: true });
  },
  files: async (name: string) => (await opfsFiles(name)).map(({ path, size, lastModified }) => ({ path, size, lastModified })),
  cutNewest,
  open: openStore,
  untilCount,
  untilRefused,
  untilLinkError,
  id: (name: string) => take(name).storage.id,
  insert: (name: string, data: Record<string, unknown>) => take(name).storage.insert(data),
  /** Resolves once the store's writes are on disk, record files included (an awaited write does not wait for those). */
  idle: (name: string) => internals(take(name).storage).committer.idle(),
  list: async (name: string) => (await take(name).storage.list()).map((r) => ({ id: r.id, data: r.data })),
  bootstraps: (name: string) => take(name).bootstraps,
  get: (name: string, id: string) => take(name).storage.get(id),
  count: async (name: string) => (await take(name).storage.list()).length,
  nodes: (name: string) => take(name).storage.sync.listNodes().map((n) => n.url),
  synced: (name: string, url: string, timeout = 20_000) => take(name).storage.sync.synced(url, { timeout }),
  close: async (name: string) => {
    const h = held.get(name);
    held.delete(name);
    await h?.storage.close();
  },
  /** Runs fn, answering its error as { error } instead of rejecting (LOCKED and the like). */
  settle: async <T>(fn: () => Promise<T>): Promise<{ value: T } | { error: PageError }> => {
    try {
      return { value: await fn() };
    } catch (e) {
      return { error: asError(e) };
    }
  },
};

export type Kit = typeof kit;

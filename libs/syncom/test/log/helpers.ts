import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { Backend } from '../../src/backend/types';
import type { SyncomError } from '../../src/errors';
import { isHidden, readEntry, type Entry } from '../../src/crdt';
import { unpackEntry, type Op } from '../../src/op';
import { open } from '../../src/open';
import { type Storage } from '../../src/storage';
import type { OpenOptions } from '../../src/storage/options';

/** A fixed wall clock for tests: 2025-01-01T00:00:00Z. */
export const T0 = Date.UTC(2025, 0, 1);
export const DAY = 86_400_000;

let keyFiles: Record<string, string> | undefined;

/**
 * The key files of one node, made once per test file: generating the RSA pair
 * costs ~100 ms, so every backend of a file starts with the same keys (the
 * same node id) instead of making its own.
 */
export async function nodeKeys(): Promise<Record<string, string>> {
  if (!keyFiles) {
    const b = createMemoryBackend();
    const s = await open({ path: 'keys', backend: b });
    await s.close();
    keyFiles = Object.fromEntries([...b.files()].filter(([p]) => p.startsWith('keys/')));
  }
  return keyFiles;
}

/** A fresh memory backend holding only this file's node keys. */
export async function freshBackend(): Promise<MemoryBackend> {
  return createMemoryBackend({ files: await nodeKeys() });
}

/** Open a storage at 'n' on `backend`. */
export function openOn(backend: Backend, options: Omit<OpenOptions, 'path' | 'backend'> = {}): Promise<Storage> {
  return open({ path: 'n', backend, ...options });
}

/** openOn, with the errors it reports: open() reports startup errors a turn after it resolved, and they are in by then. */
export async function opened(b: Backend, options: Omit<OpenOptions, 'path' | 'backend'> = {}): Promise<{ s: Storage; errors: SyncomError[] }> {
  const errors: SyncomError[] = [];
  const s = await openOn(b, options);
  s.on('error', (e) => errors.push(e));
  await new Promise((r) => setImmediate(r));
  return { s, errors };
}

/** Open `backend` again and collect what the open reports on `error` (reported on a setImmediate it queued: one turn later they are in). */
export async function reopenedWithErrors(backend: Backend, options: Omit<OpenOptions, 'path' | 'backend'> = {}): Promise<{ s: Storage; errors: SyncomError[] }> {
  const errors: SyncomError[] = [];
  const s = await openOn(backend, options);
  s.on('error', (e) => errors.push(e));
  await new Promise((r) => setImmediate(r));
  return { s, errors };
}

/** Names of the files under log/open/, by position (a file may hold several batches, one a line). */
export function openFiles(b: MemoryBackend): number[] {
  return [...b.files().keys()]
    .map((p) => /^log\/open\/(\d+)\.json$/.exec(p)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number)
    .sort((x, y) => x - y);
}

/** The readable lines of the open files, by the position their batch starts at: its JSON and its file. */
export function openLines(b: MemoryBackend): Map<number, { text: string; path: string }> {
  const out = new Map<number, { text: string; path: string }>();
  for (const name of openFiles(b)) {
    const path = `log/open/${name}.json`;
    for (const text of (b.files().get(path) as string).split('\n')) {
      try {
        out.set((JSON.parse(text) as { from: number }).from, { text, path });
      } catch {
        // A torn line: no batch of its own.
      }
    }
  }
  return new Map([...out].sort(([x], [y]) => x - y));
}

/** The positions the open batches start at, whether each is a file or a line of one. */
export function openBatches(b: MemoryBackend): number[] {
  return [...openLines(b).keys()];
}

/** Positions of the sealed segment files log/seg-<from>.json. */
export function segmentFiles(b: MemoryBackend): number[] {
  return [...b.files().keys()]
    .map((p) => /^log\/seg-(\d+)\.json$/.exec(p)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number)
    .sort((x, y) => x - y);
}

/**
 * A log file (open batch or segment) as stored: { from, ops: packed[] }. An
 * open batch is named as it would be in a file of its own (log/open/<from>.json)
 * and found wherever it is a line.
 */
export function logFile(b: MemoryBackend, path: string): { from: number; chain?: string; ops: unknown[] } {
  const batch = /^log\/open\/(\d+)\.json$/.exec(path);
  const text = batch ? openLines(b).get(Number(batch[1]))?.text : b.files().get(path);
  if (text === undefined) throw new Error(`no file ${path}`);
  return JSON.parse(text) as { from: number; ops: unknown[] };
}

/** The ops of a log file, unpacked (a hole stays null). */
export function fileOps(b: MemoryBackend, path: string): (Op | null)[] {
  return logFile(b, path).ops.map((p) => (p === null ? null : (unpackEntry(p)?.op ?? null)));
}

/** Every log file's path, open batches (each as if a file, see logFile) and sealed segments, in position order. */
export function logPaths(b: MemoryBackend): string[] {
  const from = (p: string) => Number(/(\d+)\.json$/.exec(p)?.[1]);
  const segments = [...b.files().keys()].filter((p) => /^log\/seg-\d+\.json$/.test(p));
  return [...segments, ...openBatches(b).map((n) => `log/open/${n}.json`)].sort((x, y) => from(x) - from(y));
}

/** index.json, parsed. */
export function indexJson(b: MemoryBackend): Record<string, unknown> {
  const text = b.files().get('log/index.json');
  if (text === undefined) throw new Error('no log/index.json');
  return JSON.parse(text) as Record<string, unknown>;
}

/** What a record reads as, or a marker for a hidden (deleted or purged) one. */
export function viewOf(e: Entry | undefined): unknown {
  if (!e) return undefined;
  if (e.purged) return '<purged>';
  return isHidden(e) ? '<deleted>' : readEntry(e);
}

/** Every record of a map of entries, as read. */
export function viewsOf(entries: ReadonlyMap<string, Entry>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of [...entries.keys()].sort()) out[id] = viewOf(entries.get(id));
  return out;
}

/** A backend that records every mutating call, in order, then forwards it. */
export function recording(inner: Backend): { backend: Backend; calls: { op: string; path: string; data?: string }[] } {
  const calls: { op: string; path: string; data?: string }[] = [];
  const backend: Backend = {
    read: (p) => inner.read(p),
    list: (d) => inner.list(d),
    exists: (p) => inner.exists(p),
    mkdir: (d) => inner.mkdir(d),
    write: async (p, data, o) => {
      calls.push({ op: 'write', path: p, data });
      return inner.write(p, data, o);
    },
    overwrite: async (p, data, o) => {
      calls.push({ op: 'overwrite', path: p, data });
      return inner.overwrite(p, data, o);
    },
    remove: async (p) => {
      calls.push({ op: 'remove', path: p });
      return inner.remove(p);
    },
  };
  return { backend, calls };
}

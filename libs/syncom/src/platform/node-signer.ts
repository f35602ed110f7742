import type { KeyObject } from 'node:crypto';
import { sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import { Worker } from 'node:worker_threads';
import type { SigTarget } from './types';

/**
 * A signing thread: a key arrives once, then chunks of sig headers, each
 * answered with its base64url sigs (or the error that stopped it).
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', (m) => {
  if (m.key) return void keys.set(m.keyId, m.key);
  try {
    const key = keys.get(m.keyId);
    parentPort.postMessage({ id: m.id, sigs: m.headers.map((h) => sign(null, Buffer.from(h, 'utf8'), key).toString('base64url')) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String(e && e.message) });
  }
});`;

/** A signing thread's answer to one chunk. */
interface Answer {
  id: number;
  sigs?: string[];
  error?: string;
}

/** Ops per message: small enough that signing starts while the rest of a burst is built. */
const CHUNK = 16;
/** Bursts smaller than this are signed on libuv's pool (see flush). */
const FEW = 4;
/** Threads end after this long with nothing to sign (the next op starts one again, in tens of ms). */
const IDLE_MS = 10_000;
/**
 * One thread per core, at most 4 (libuv's default pool size): the main
 * thread waits on the sigs of a batch before its append, so signing gets
 * every core then; while ops are built, the threads share what is left.
 */
const THREADS = Math.max(1, Math.min(4, availableParallelism()));

interface Chunk {
  targets: SigTarget[];
  headers: string[];
  key: KeyObject;
  done: Promise<void>;
  resolve(): void;
  reject(e: Error): void;
}

interface Thread {
  worker: Worker;
  keys: Set<number>;
  sent: Map<number, Chunk>;
  ops: number;
}

const keyIds = new WeakMap<KeyObject, number>();
let threads: Thread[] = [];
let open: Chunk | undefined;
let idle: ReturnType<typeof setTimeout> | undefined;
let nextId = 1;
/** Set once a thread failed: from then on every op is signed on libuv's pool. */
let broken = false;

/** Sign one header on libuv's pool; sets target.sig. */
export function signOnLibuv(target: SigTarget, header: string, key: KeyObject): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    sign(null, Buffer.from(header, 'utf8'), key, (e, sig) => {
      if (e) return reject(e);
      target.sig = sig.toString('base64url');
      resolve();
    });
  });
}

function keyIdOf(key: KeyObject): number {
  let id = keyIds.get(key);
  if (id === undefined) keyIds.set(key, (id = nextId++));
  return id;
}

function signOnPool(c: Chunk): void {
  Promise.all(c.targets.map((t, i) => signOnLibuv(t, c.headers[i], c.key))).then(c.resolve, c.reject);
}

/** A thread failed or exited under its chunks: they, and every later op, go to the pool. */
function fail(t: Thread): void {
  broken = true;
  threads = threads.filter((x) => x !== t);
  for (const c of t.sent.values()) signOnPool(c);
  t.sent.clear();
}

function settled(t: Thread, m: Answer): void {
  const c = t.sent.get(m.id);
  if (!c) return;
  t.sent.delete(m.id);
  if (t.sent.size === 0) t.worker.unref();
  t.ops -= c.targets.length;
  const sigs = m.sigs;
  if (sigs) {
    c.targets.forEach((op, i) => (op.sig = sigs[i]));
    c.resolve();
  } else c.reject(new Error(`signing failed: ${m.error}`));
  if (threads.every((x) => x.sent.size === 0)) {
    if (idle) clearTimeout(idle);
    idle = setTimeout(retire, IDLE_MS).unref();
  }
}

function start(): Thread {
  const worker = new Worker(SOURCE, { eval: true });
  const t: Thread = { worker, keys: new Set(), sent: new Map(), ops: 0 };
  worker.on('message', (m: Answer) => settled(t, m));
  worker.on('error', () => fail(t));
  worker.on('exit', () => threads.includes(t) && fail(t));
  // Held only while it has chunks (see post), as libuv's pool holds a process for its pending jobs: an idle one keeps no process alive.
  worker.unref();
  threads.push(t);
  return t;
}

function retire(): void {
  idle = undefined;
  if (threads.some((t) => t.sent.size > 0)) return;
  const ended = threads;
  threads = [];
  for (const t of ended) void t.worker.terminate();
}

/** The thread with the fewest ops waiting, a new one while there are fewer than THREADS. */
function pick(): Thread {
  const least = threads.reduce<Thread | undefined>((a, t) => (a && a.ops <= t.ops ? a : t), undefined);
  return least && (least.ops === 0 || threads.length >= THREADS) ? least : start();
}

function post(t: Thread, c: Chunk): void {
  const keyId = keyIdOf(c.key);
  if (!t.keys.has(keyId)) t.worker.postMessage({ keyId, key: c.key });
  t.keys.add(keyId);
  const id = nextId++;
  t.worker.postMessage({ id, keyId, headers: c.headers });
  if (t.sent.size === 0) t.worker.ref();
  t.sent.set(id, c);
  t.ops += c.targets.length;
}

/** Hand a chunk to a thread; where threads cannot be had (or take no key), to the pool from now on. */
function send(c: Chunk): void {
  if (idle) clearTimeout(idle);
  idle = undefined;
  try {
    post(pick(), c);
  } catch {
    broken = true;
    signOnPool(c);
  }
}

function flush(): void {
  const c = open;
  open = undefined;
  if (!c) return;
  // A burst of a few ops (an awaited write) goes to the pool: a job per op answers sooner than a round trip to a thread.
  if (c.targets.length < FEW) signOnPool(c);
  else send(c);
}

function newChunk(key: KeyObject): Chunk {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { targets: [], headers: [], key, done, resolve, reject };
}

/**
 * Sign an op of this node (its sig header given) off the main thread;
 * resolves once target.sig is set. Ops signed in one burst of the main
 * thread share a message to a signing thread, CHUNK at a time, so the main
 * thread pays a message per chunk, not a libuv pool job (a thread wake-up,
 * a callback, a promise) per op. Without worker threads it falls back to
 * libuv's pool.
 */
export function signOffThread(target: SigTarget, header: string, key: KeyObject): Promise<void> {
  if (broken) return signOnLibuv(target, header, key);
  if (open && open.key !== key) flush();
  let c = open;
  if (!c) {
    const chunk = (c = open = newChunk(key));
    // The end of the burst: every op queued in this turn of the microtask queue is in. A promise
    // job, not queueMicrotask, which fake timers (jest's, a simulator's) hold back.
    void Promise.resolve().then(() => open === chunk && flush());
  }
  c.targets.push(target);
  c.headers.push(header);
  if (c.targets.length >= CHUNK) flush();
  return c.done;
}

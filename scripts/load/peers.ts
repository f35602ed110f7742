import type { Vector } from 'syncom';
import { FullPeer } from './full-peer';
import type { Delivery } from './delivery';
import { RawPeer } from './raw-peer';

/** This process's CPU time so far (user and system), ms: the tool weighs what its own processes cost. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** A peer of the run, raw or full. */
export type LoadPeer = RawPeer | FullPeer;

/** How connecting went: per-peer times in ms (socket up, hello answered, feed open or bootstrap done). */
export interface ConnectStats {
  ms: number[];
  failed: Map<string, number>;
  /** Wall time of the whole ramp, ms. */
  wallMs: number;
}

/**
 * `n` peers, `full` of them real storages spread evenly among the raw ones
 * (so the sample connects early and late in the ramp alike).
 */
export async function makePeers(n: number, full: number, delivery?: Delivery): Promise<LoadPeer[]> {
  const at = fullAt(n, full);
  const peers: LoadPeer[] = [];
  for (let i = 0; i < n; i++) peers.push(at.has(i) ? await FullPeer.open(i) : new RawPeer(i, delivery));
  return peers;
}

/** The indices of the full peers among `n`. */
export function fullAt(n: number, full: number): Set<number> {
  return new Set(Array.from({ length: full }, (_, k) => Math.floor((k * n) / full)));
}

/** Connects every peer, at most `concurrency` at a time (a real fleet does not dial in one instant). */
export async function rampUp(peers: LoadPeer[], url: string, token: string, concurrency: number): Promise<ConnectStats> {
  const stats: ConnectStats = { ms: [], failed: new Map(), wallMs: 0 };
  const t0 = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < peers.length) {
      const peer = peers[next++];
      try {
        stats.ms.push(await peer.connect(url, token));
      } catch (e) {
        const code = (e as { code?: string }).code ?? (e as Error).message;
        stats.failed.set(code, (stats.failed.get(code) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, peers.length) }, lane));
  stats.wallMs = performance.now() - t0;
  return stats;
}

/**
 * Writes per peer: `total` spread evenly over `peers` peers (the first ones
 * make one more when it does not divide), e.g. --rate 170 for 30 s.
 */
export function writesOf(total: number, peers: number): (index: number) => number {
  return (i) => Math.floor(total / peers) + (i < total % peers ? 1 : 0);
}

/**
 * Every peer makes its writes (`writes`, or writes(peer.index)) at random
 * moments of the next `seconds`; resolves when all are answered. One timer
 * walks the sorted schedule, starting the writes that are due at each turn:
 * thousands of peers' writes do not each hold a timer of their own.
 */
export async function writeFor(peers: LoadPeer[], seconds: number, writes: number | ((index: number) => number)): Promise<{ wallMs: number; lastMs: number }> {
  const count = typeof writes === 'number' ? () => writes : writes;
  const schedule = peers.flatMap((peer) => Array.from({ length: count(peer.index) }, () => ({ at: Math.random() * seconds * 1000, peer })));
  schedule.sort((a, b) => a.at - b.at);
  const t0 = performance.now();
  let lastMs = 0;
  const answered: Promise<void>[] = [];
  // A write that failed is not made (the checks count it); its failure must not stop the others.
  const done = () => { lastMs = Math.max(lastMs, performance.now() - t0); };
  await new Promise<void>((resolve) => {
    let next = 0;
    const turn = () => {
      const now = performance.now() - t0;
      while (next < schedule.length && schedule[next].at <= now) answered.push(schedule[next++].peer.write().then(done, done));
      if (next < schedule.length) setTimeout(turn, schedule[next].at - now);
      else resolve();
    };
    turn();
  });
  await Promise.all(answered);
  return { wallMs: performance.now() - t0, lastMs };
}

/** Resolves once `peer` holds every stream of `vector`, rechecked at each page or change it takes. */
export function converged(peer: LoadPeer, vector: Vector): Promise<void> {
  return new Promise((resolve) => {
    if (peer.covers(vector)) return resolve();
    const off = peer.onProgress(() => {
      if (!peer.covers(vector)) return;
      off();
      resolve();
    });
  });
}

/** What a child process of the tool is given at init: its peers' indices and writes, the hub, the ramp and the window. */
export interface ChildInit {
  indices: number[];
  writes: number[];
  url: string;
  token: string;
  ramp: number;
  seconds: number;
}

/** A child process's ramp: its peers connect; the `connected` message it answers with. */
export async function connectShare(peers: LoadPeer[], init: ChildInit) {
  const c = await rampUp(peers, init.url, init.token, init.ramp);
  return { t: 'connected' as const, ms: c.ms, failed: [...c.failed], wallMs: c.wallMs, cpuMs: cpuMs() };
}

/** A child process's write window: each of its peers makes the writes init gave it. */
export function writeShare(peers: LoadPeer[], init: ChildInit): Promise<{ wallMs: number; lastMs: number }> {
  const writes = new Map(init.indices.map((i, k) => [i, init.writes[k]]));
  return writeFor(peers, init.seconds, (i) => writes.get(i) ?? 0);
}

/** Resolves once every promise did or after `ms`, whichever is first; how many did. */
export async function doneWithin(ps: Promise<unknown>[], ms: number): Promise<number> {
  let done = 0;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); });
  await Promise.race([Promise.all(ps.map((p) => p.then(() => done++))), late]);
  clearTimeout(timer);
  return done;
}

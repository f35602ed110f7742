import { availableParallelism, loadavg } from 'node:os';
import { type CheckReport, checkRecords, compareVectors, expectedVector } from './checks';
import { FullPeer } from './full-peer';
import { HubChild } from './hub-child';
import { type ConnectStats, converged, type LoadPeer, makePeers, rampUp, writeFor } from './peers';
import { RawPeer } from './raw-peer';
import { type PhaseDelay, type Sample, Sampler } from './sampler';

/** What a load run does (the command line of `npm run load`). */
export interface LoadOptions {
  peers: number;
  /** Length of the write window, seconds. */
  seconds: number;
  /** Writes per peer in the window. */
  writes: number;
  /** How many of the peers are full storages (the sample compared record for record). */
  full: number;
  /** Peers connecting at once during the ramp. */
  ramp: number;
  /** Seconds between samples of the hub. */
  sample: number;
  /** Bound on the wait for the last writes to be acknowledged and every peer to converge, seconds. */
  settle: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** Everything a run measured and found. */
export interface LoadResult {
  options: LoadOptions;
  connect: ConnectStats;
  writes: { acked: number; failed: Map<string, number>; windowMs: number; lastAckMs: number };
  /** How long after the last write every peer held every stream; undefined when some did not. */
  convergeMs?: number;
  notConverged: number;
  holes: number;
  check: CheckReport;
  samples: Sample[];
  phases: PhaseDelay[];
  /** Sockets the hub still counted once every peer had closed (0 expected). */
  socketsLeft: number;
  /** The machine: cores, and the 1-minute load average before and after (others share it). */
  machine: { cores: number; loadBefore: number; loadAfter: number };
}

/** Resolves with `p`'s outcome, or false after `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Refusals and failures of the raw peers' writes and feeds, by code. */
function failures(peers: LoadPeer[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of peers) if (p instanceof RawPeer) for (const [code, n] of p.errors) out.set(code, (out.get(code) ?? 0) + n);
  return out;
}

type Settled = { problems: string[]; notConverged: number; convergeMs?: number };

/**
 * Waits (bounded) until the full peers' writes are acknowledged by the hub,
 * then until every peer holds every stream the hub holds; returns the hub's
 * vector problems and the peers that did not converge.
 */
async function settle(hub: HubChild, peers: LoadPeer[], ms: number): Promise<Settled> {
  const t0 = performance.now();
  const full = peers.filter((p): p is FullPeer => p instanceof FullPeer);
  await within(Promise.all(full.map((p) => p.pushed())), ms);
  const vector = await hub.vector();
  const problems = compareVectors(vector, expectedVector(peers));
  let done = 0;
  await within(Promise.all(peers.map((p) => converged(p, vector).then(() => done++))), Math.max(1, ms - (performance.now() - t0)));
  const convergeMs = done === peers.length ? performance.now() - t0 : undefined;
  return { problems, notConverged: peers.length - done, convergeMs };
}

/** Closes every peer, then waits (bounded) for the hub to count no socket; returns how many it still counts. */
async function closeAll(hub: HubChild, peers: LoadPeer[]): Promise<number> {
  await Promise.all(peers.map((p) => p.close()));
  return hub.socketsDrained(10_000);
}

/** The run's phases, with the hub up and the peers made; `extra` collects the verifier to close. */
async function drive(hub: HubChild, sampler: Sampler, peers: LoadPeer[], o: LoadOptions, extra: LoadPeer[]): Promise<LoadResult> {
  const log = o.log ?? (() => undefined);
  const loadBefore = loadavg()[0];
  await sampler.start('ramp');
  log(`hub pid ${hub.pid} on ${hub.url}; ramping up ${o.peers} peers (${o.full} full), ${o.ramp} at a time`);
  const connect = await rampUp(peers, hub.url, hub.token, o.ramp);
  await sampler.enter('writes');
  log(`connected in ${(connect.wallMs / 1000).toFixed(1)} s; writing for ${o.seconds} s`);
  const window = await writeFor(peers, o.seconds, o.writes);
  await sampler.enter('settle');
  const settled = await settle(hub, peers, o.settle * 1000);
  await sampler.enter('verify');
  log('settled; reading the hub through a fresh node');
  const verifier = await FullPeer.open(-1);
  extra.push(verifier);
  await verifier.connect(hub.url, hub.token);
  const check = await checkRecords(peers, verifier);
  check.problems.unshift(...settled.problems);
  const writes = { acked: check.ackedWrites, failed: failures(peers), windowMs: window.wallMs, lastAckMs: window.lastMs };
  const holes = peers.reduce((n, p) => n + (p instanceof RawPeer ? p.holes : 0), 0);
  await sampler.enter('close');
  const socketsLeft = await closeAll(hub, [...peers, verifier]);
  await sampler.stop();
  const machine = { cores: availableParallelism(), loadBefore, loadAfter: loadavg()[0] };
  return { options: o, connect, writes, ...settled, holes, check, socketsLeft, samples: sampler.samples, phases: sampler.phases, machine };
}

/**
 * One load run against a hub in a child process: ramp up `peers`
 * connections, let each write `writes` times in `seconds`, wait for every
 * write to be acknowledged and every peer to converge, check nothing was
 * lost, close everything and sample the hub's RSS and event-loop delay
 * all along.
 */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const hub = await HubChild.start();
  const peers: LoadPeer[] = [];
  const extra: LoadPeer[] = [];
  try {
    peers.push(...(await makePeers(o.peers, o.full)));
    return await drive(hub, new Sampler(hub, o.sample * 1000), peers, o, extra);
  } finally {
    // Closing twice is harmless: a failed run must not leave sockets or a hub behind.
    await Promise.all([...peers, ...extra].map((p) => p.close()));
    await hub.stop();
  }
}

import { availableParallelism, loadavg } from 'node:os';
import { type CheckReport, checkRecords, compareVectors, expectedVector } from './checks';
import { Delivery, type DeliverySummary, mergeDelivery, summarize } from './delivery';
import { FullPeer } from './full-peer';
import { FullProc, type FullSettled } from './full-procs';
import { HubChild } from './hub-child';
import { type ConnectStats, converged, cpuMs, fullAt, type LoadPeer, makePeers, rampUp, writeFor, writesOf } from './peers';
import { PeerProcs, type ProcsSettled } from './peer-procs';
import { pages, RawPeer } from './raw-peer';
import { type PhaseDelay, type Sample, Sampler } from './sampler';

/** What a load run does (the command line of `npm run load`). */
export interface LoadOptions {
  peers: number;
  /** Length of the write window, seconds. */
  seconds: number;
  /** Writes per peer in the window. */
  writes: number;
  /** Writes per second offered by all peers together (overrides `writes`: rate x seconds spread evenly). */
  rate?: number;
  /** Child processes for the raw peers (0: all in this process). */
  procs?: number;
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
  /**
   * From a write's ack at its writer to its arrival at each other raw peer, ms;
   * expected: the deliveries due (acked raw writes x other raw peers), unmatched: arrivals of writes never acked to a raw peer.
   */
  delivery: DeliverySummary & { expected: number; unmatched: number };
  /** Cores the load tool's own processes (this one and the peer processes) kept busy in the write window and the settle phase; the raw and the full peers' processes apart. */
  tool: { windowCores: number; settleCores: number; rawCores: { window: number; settle: number }; fullCores: { window: number; settle: number }; pages: { decoded: number; spliced: number; reused: number } };
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
async function settle(hub: HubChild, f: Fleet, ms: number): Promise<Settled & { remote?: ProcsSettled; full?: FullSettled }> {
  const { peers, procs } = f;
  const t0 = performance.now();
  const local = peers.filter((p): p is FullPeer => p instanceof FullPeer);
  await Promise.all([within(Promise.all(local.map((p) => p.pushed())), ms), f.full?.pushed(ms)]);
  const vector = await hub.vector();
  let done = 0;
  const left = Math.max(1, ms - (performance.now() - t0));
  const [remote, full] = await Promise.all([procs?.settle(vector, left), f.full?.settle(vector, left), within(Promise.all(peers.map((p) => converged(p, vector).then(() => done++))), left)]);
  const problems = compareVectors(vector, expectedVector([...peers, ...standIns(remote, full)]));
  const notConverged = peers.length - done + (remote?.notConverged ?? 0) + (full?.notConverged ?? 0);
  const convergeMs = notConverged === 0 ? performance.now() - t0 : undefined;
  return { problems, notConverged, convergeMs, remote, full };
}

/** The peers of the child processes as the checks read them (their node and acknowledged writes). */
function standIns(remote?: ProcsSettled, full?: FullSettled): LoadPeer[] {
  return [...(remote?.peers ?? []), ...(full?.peers ?? [])] as unknown as LoadPeer[];
}

/** The delivery figures of this process and the children, and the deliveries that were due. */
function deliveryOf(local: Delivery, peers: LoadPeer[], remote?: ProcsSettled): LoadResult['delivery'] {
  const raws = [...peers.filter((p): p is RawPeer => p instanceof RawPeer), ...(remote?.peers ?? [])];
  const acked = raws.reduce((n, p) => n + p.acked.length, 0);
  const f = mergeDelivery([local.figures(), ...(remote?.delivery ?? [])]);
  return { ...summarize(f), expected: acked * Math.max(0, raws.length - 1), unmatched: f.unmatched };
}

/** Closes every peer, then waits (bounded) for the hub to count no socket; returns how many it still counts. */
async function closeAll(hub: HubChild, peers: LoadPeer[]): Promise<number> {
  await Promise.all(peers.map((p) => p.close()));
  return hub.socketsDrained(10_000);
}

/** The peers of this process, and with child processes the raw peers' processes and the full peers' one. */
interface Fleet { peers: LoadPeer[]; procs?: PeerProcs; full?: FullProc; delivery: Delivery; writes: (i: number) => number }

/** Connect times of several processes as one. */
function mergeConnect(all: ConnectStats[]): ConnectStats {
  const failed = new Map<string, number>();
  for (const c of all) for (const [code, n] of c.failed) failed.set(code, (failed.get(code) ?? 0) + n);
  return { ms: all.flatMap((c) => c.ms), failed, wallMs: Math.max(0, ...all.map((c) => c.wallMs)) };
}

/** Ramp up this process's peers and the children's together. */
async function rampAll(hub: HubChild, f: Fleet, o: LoadOptions): Promise<{ connect: ConnectStats; cpu: number; rawCpu: number; fullCpu: number }> {
  const [local, remote, full] = await Promise.all([rampUp(f.peers, hub.url, hub.token, o.ramp), f.procs?.ramp(), f.full?.ramp()]);
  const connect = mergeConnect([local, ...(remote ? [remote] : []), ...(full ? [full] : [])]);
  const [rawCpu, fullCpu] = [remote?.cpuMs ?? 0, full?.cpuMs ?? 0];
  return { connect, cpu: cpuMs() + rawCpu + fullCpu, rawCpu, fullCpu };
}

/** The run's phases, with the hub up and the peers made; `extra` collects the verifier to close. */
async function drive(hub: HubChild, sampler: Sampler, f: Fleet, o: LoadOptions, extra: LoadPeer[]): Promise<LoadResult> {
  const log = o.log ?? (() => undefined);
  const peers = f.peers;
  const loadBefore = loadavg()[0];
  await sampler.start('ramp');
  log(`hub pid ${hub.pid} on ${hub.url}; ramping up ${o.peers} peers (${o.full} full${o.procs ? `, the raw ones in ${o.procs} processes` : ''}), ${o.ramp} at a time`);
  const { connect, cpu: cpuRamp, rawCpu: rawRamp, fullCpu: fullRamp } = await rampAll(hub, f, o);
  await sampler.enter('writes');
  log(`connected in ${(connect.wallMs / 1000).toFixed(1)} s; writing for ${o.seconds} s`);
  const [window, remoteWindow, fullWindow] = await Promise.all([writeFor(peers, o.seconds, f.writes), f.procs?.write(), f.full?.write()]);
  for (const w of [remoteWindow, fullWindow]) if (w) [window.wallMs, window.lastMs] = [Math.max(window.wallMs, w.wallMs), Math.max(window.lastMs, w.lastMs)];
  const [rawWrite, fullWrite] = [remoteWindow?.cpuMs ?? 0, fullWindow?.cpuMs ?? 0];
  const cpuWrite = cpuMs() + rawWrite + fullWrite;
  // The window's last deliveries are still on their way: no full collection in the hub now (the settle's end has one).
  await sampler.enter('settle', false);
  const settleAt = performance.now();
  const { remote, full, ...settled } = await settle(hub, f, o.settle * 1000);
  const settleMs = performance.now() - settleAt;
  const [rawSettle, fullSettle] = [remote?.cpuMs ?? 0, full?.cpuMs ?? 0];
  const tool = {
    windowCores: (cpuWrite - cpuRamp) / window.wallMs, settleCores: (cpuMs() + rawSettle + fullSettle - cpuWrite) / settleMs,
    rawCores: { window: (rawWrite - rawRamp) / window.wallMs, settle: (rawSettle - rawWrite) / settleMs },
    fullCores: { window: (fullWrite - fullRamp) / window.wallMs, settle: (fullSettle - fullWrite) / settleMs },
    pages: { decoded: pages.decoded + (remote?.pages.decoded ?? 0), spliced: pages.spliced + (remote?.pages.spliced ?? 0), reused: pages.reused + (remote?.pages.reused ?? 0) },
  };
  await sampler.enter('verify');
  log('settled; reading the hub through a fresh node');
  const verifier = await FullPeer.open(-1);
  extra.push(verifier);
  await verifier.connect(hub.url, hub.token);
  const check = await checkRecords([...peers, ...standIns(remote, full)], verifier, full?.peers);
  check.problems.unshift(...settled.problems);
  const failed = failures(peers);
  for (const [code, n] of remote?.errors ?? []) failed.set(code, (failed.get(code) ?? 0) + n);
  const writes = { acked: check.ackedWrites, failed, windowMs: window.wallMs, lastAckMs: window.lastMs };
  const holes = peers.reduce((n, p) => n + (p instanceof RawPeer ? p.holes : 0), 0) + (remote?.holes ?? 0);
  await sampler.enter('close');
  await Promise.all([f.procs?.close(), f.full?.close()]);
  const socketsLeft = await closeAll(hub, [...peers, verifier]);
  await sampler.stop();
  const machine = { cores: availableParallelism(), loadBefore, loadAfter: loadavg()[0] };
  const delivery = deliveryOf(f.delivery, peers, remote);
  return { options: o, connect, writes, ...settled, holes, check, socketsLeft, samples: sampler.samples, phases: sampler.phases, tool, machine, delivery };
}

/**
 * The peers: all in this process, or with `procs` the raw ones in that many
 * child processes and the full ones in one more of their own.
 */
async function makeFleet(o: LoadOptions, hub: HubChild, f: Fleet): Promise<void> {
  if (!o.procs) return void f.peers.push(...(await makePeers(o.peers, o.full, f.delivery)));
  const at = fullAt(o.peers, o.full);
  const all = Array.from({ length: o.peers }, (_, i) => i);
  const common = { url: hub.url, token: hub.token, ramp: o.ramp, seconds: o.seconds };
  if (at.size > 0) f.full = await FullProc.start([...at], f.writes, common);
  f.procs = await PeerProcs.start(o.procs, all.filter((i) => !at.has(i)), f.writes, common, f.delivery);
}

/**
 * One load run against a hub in a child process: ramp up `peers`
 * connections, let them write (`writes` each, or `rate` per second in all)
 * in `seconds`, wait for every write to be acknowledged and every peer to
 * converge, check nothing was lost, close everything and sample the hub's
 * RSS and event-loop delay all along; with `procs` the raw peers run in that
 * many child processes.
 */
export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const hub = await HubChild.start();
  const delivery = new Delivery();
  const writes = o.rate === undefined ? () => o.writes : writesOf(Math.round(o.rate * o.seconds), o.peers);
  const fleet: Fleet = { peers: [], delivery, writes };
  const extra: LoadPeer[] = [];
  try {
    await makeFleet(o, hub, fleet);
    return await drive(hub, new Sampler(hub, o.sample * 1000), fleet, o, extra);
  } finally {
    // Closing twice is harmless: a failed run must not leave sockets, processes or a hub behind.
    await Promise.all([...fleet.peers, ...extra].map((p) => p.close()));
    await Promise.all([fleet.procs?.close(), fleet.full?.close()]);
    await hub.stop();
  }
}

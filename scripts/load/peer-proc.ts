// A child process of `npm run load -- --procs N`: raw protocol peers of the
// run, driven by the parent over IPC (see peer-procs.ts), so the load tool's
// own event loop is not what bounds the figures.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Vector } from 'syncom';
import { Delivery, type DeliveryFigures } from './delivery';
import { type ChildInit, connectShare, converged, cpuMs, doneWithin, writeShare } from './peers';
import { pages, RawPeer } from './raw-peer';

/** Parent to child. */
export type ToChild =
  | ({ t: 'init' } & ChildInit)
  | { t: 'ramp' } | { t: 'write' } | { t: 'acks'; list: [string, number][] }
  | { t: 'settle'; vector: Vector; ms: number } | { t: 'close' };

/** What a child says of one of its peers at the end, for the parent's checks. */
export interface PeerReport { index: number; node: string; acked: RawPeer['acked'] }

/** Child to parent. */
export type FromChild =
  | { t: 'ready' } | { t: 'connected'; ms: number[]; failed: [string, number][]; wallMs: number; cpuMs: number }
  | { t: 'acks'; list: [string, number][] } | { t: 'written'; wallMs: number; lastMs: number; cpuMs: number }
  | { t: 'settled'; notConverged: number; holes: number; errors: [string, number][]; peers: PeerReport[]; delivery: DeliveryFigures; cpuMs: number; pages: { decoded: number; spliced: number; reused: number } }
  | { t: 'closed' };

/** Acks of this process's peers are also queued for the parent, which relays them to the other processes. */
class RelayedDelivery extends Delivery {
  out: [string, number][] = [];
  override ack(key: string, at: number): void {
    super.ack(key, at);
    this.out.push([key, at]);
  }
  relayed(key: string, at: number): void {
    super.ack(key, at);
  }
}

const send = (m: FromChild) => process.send?.(m);

/**
 * LOAD_TRACE=1: every 5 s this process prints the pages and ops its peers
 * took, its CPU and its own event-loop delay, to tell a hub that sends
 * slowly from peers that take slowly.
 */
function trace(): void {
  if (process.env.LOAD_TRACE !== '1') return;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let [at, cpu, taken] = [performance.now(), cpuMs(), 0];
  setInterval(() => {
    const ops = peers.reduce((n, p) => n + p.ops, 0);
    const [now, c] = [performance.now(), cpuMs()];
    const s = (now - at) / 1000;
    process.stderr.write(`[peers ${process.pid}] ${((ops - taken) / s).toFixed(0)} ops/s taken, pages ${pages.decoded + pages.spliced + pages.reused}, cpu ${((c - cpu) / 1000 / s).toFixed(2)} cores, loop p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms\n`);
    [at, cpu, taken] = [now, c, ops];
    loop.reset();
  }, 5000).unref();
}
const delivery = new RelayedDelivery();
let peers: RawPeer[] = [];
let init: Extract<ToChild, { t: 'init' }>;

function flushAcks(): void {
  if (delivery.out.length === 0) return;
  send({ t: 'acks', list: delivery.out.splice(0) });
}

async function settle(vector: Vector, ms: number): Promise<void> {
  const done = await doneWithin(peers.map((p) => converged(p, vector)), ms);
  const errors = new Map<string, number>();
  for (const p of peers) for (const [c, n] of p.errors) errors.set(c, (errors.get(c) ?? 0) + n);
  send({
    t: 'settled', notConverged: peers.length - done, holes: peers.reduce((n, p) => n + p.holes, 0), errors: [...errors],
    peers: peers.map((p) => ({ index: p.index, node: p.node, acked: p.acked })), delivery: delivery.figures(), cpuMs: cpuMs(), pages: { decoded: pages.decoded, spliced: pages.spliced, reused: pages.reused },
  });
}

async function onMessage(m: ToChild): Promise<void> {
  if (m.t === 'init') {
    init = m;
    peers = m.indices.map((i) => new RawPeer(i, delivery));
    trace();
    return void send({ t: 'ready' });
  }
  if (m.t === 'ramp') return void send(await connectShare(peers, init));
  if (m.t === 'write') {
    const flusher = setInterval(flushAcks, 100);
    const w = await writeShare(peers, init);
    clearInterval(flusher);
    flushAcks();
    return void send({ t: 'written', ...w, cpuMs: cpuMs() });
  }
  if (m.t === 'acks') return void m.list.forEach(([k, at]) => delivery.relayed(k, at));
  if (m.t === 'settle') return settle(m.vector, m.ms);
  for (const p of peers) p.close();
  send({ t: 'closed' });
  process.disconnect?.();
}

process.on('message', (m: ToChild) => void onMessage(m).catch((e: unknown) => {
  process.stderr.write(`load peer process: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
}));
// The parent gone (killed, crashed): nothing to report to, and no socket must stay open.
process.on('disconnect', () => process.exit(0));

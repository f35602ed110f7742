// A child process of `npm run load -- --procs N`: the run's full syncom peers
// (full-peer.ts), driven by the parent over IPC (see full-procs.ts). Each
// verifies, applies and stores every op it takes; in the parent process they
// took as much CPU as the delivery tracking of the whole run.
import type { Vector } from 'syncom';
import { recordsDigest } from './checks';
import { FullPeer } from './full-peer';
import { type ChildInit, connectShare, converged, cpuMs, doneWithin, writeShare } from './peers';
import type { RawWrite } from './raw-peer';

/** Parent to child. */
export type ToFull =
  | ({ t: 'init' } & ChildInit)
  | { t: 'ramp' } | { t: 'write' } | { t: 'pushed'; ms: number } | { t: 'settle'; vector: Vector; ms: number } | { t: 'close' };

/** What the child says of one full peer once settled, for the parent's checks. */
export interface FullReport {
  index: number;
  node: string;
  /** The writes the hub acknowledged, in order. */
  acked: RawWrite[];
  /** Writes the hub never acknowledged. */
  unacked: number;
  /** recordsDigest() of the records the peer holds. */
  digest: string;
}

/** Child to parent. */
export type FromFull =
  | { t: 'ready' } | { t: 'connected'; ms: number[]; failed: [string, number][]; wallMs: number; cpuMs: number }
  | { t: 'written'; wallMs: number; lastMs: number; cpuMs: number } | { t: 'pushed' }
  | { t: 'settled'; notConverged: number; peers: FullReport[]; cpuMs: number };

const send = (m: FromFull) => process.send?.(m);
let peers: FullPeer[] = [];
let init: Extract<ToFull, { t: 'init' }>;

async function report(p: FullPeer): Promise<FullReport> {
  const n = p.acked();
  return { index: p.index, node: p.node, acked: p.writes.slice(0, n), unacked: p.writes.length - n, digest: recordsDigest(await p.storage.list()) };
}

async function onMessage(m: ToFull): Promise<void> {
  if (m.t === 'init') {
    init = m;
    for (const i of m.indices) peers.push(await FullPeer.open(i));
    return void send({ t: 'ready' });
  }
  if (m.t === 'ramp') return void send(await connectShare(peers, init));
  if (m.t === 'write') return void send({ t: 'written', ...(await writeShare(peers, init)), cpuMs: cpuMs() });
  if (m.t === 'pushed') {
    await doneWithin(peers.map((p) => p.pushed()), m.ms);
    return void send({ t: 'pushed' });
  }
  if (m.t === 'settle') {
    const done = await doneWithin(peers.map((p) => converged(p, m.vector)), m.ms);
    return void send({ t: 'settled', notConverged: peers.length - done, peers: await Promise.all(peers.map(report)), cpuMs: cpuMs() });
  }
  await Promise.all(peers.map((p) => p.close()));
  peers = [];
  process.disconnect?.();
}

process.on('message', (m: ToFull) => void onMessage(m).catch((e: unknown) => {
  process.stderr.write(`load full peer process: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
}));
// The parent gone (killed, crashed): nothing to report to, and no socket must stay open.
process.on('disconnect', () => process.exit(0));

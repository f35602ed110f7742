import type { LoadResult } from './run-load';
import type { Sample } from './sampler';

/** Rows of the RSS table at most: a long run shows every k-th sample (and the last of each phase). */
const MAX_ROWS = 40;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const s1 = (ms: number) => (ms / 1000).toFixed(1);

/** The p-th percentile of some numbers (nearest rank); 0 for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const codes = (m: Map<string, number>) => (m.size === 0 ? 'none' : [...m].map(([c, n]) => `${c} x${n}`).join(', '));

/** How RSS moved in the write window: at its start, its peak, at its end, and over its second half. */
export function rssTrend(samples: Sample[]): { start: number; peak: number; end: number; secondHalf: number; afterClose: number } {
  const w = samples.filter((s) => s.phase === 'writes');
  const rss = (s: Sample | undefined) => s?.hub.rss ?? 0;
  const mid = w.length ? w[0].t + (w[w.length - 1].t - w[0].t) / 2 : 0;
  const half = w.filter((s) => s.t >= mid);
  return {
    start: rss(w[0]), peak: Math.max(0, ...w.map(rss)), end: rss(w[w.length - 1]),
    secondHalf: rss(half[half.length - 1]) - rss(half[0]), afterClose: rss(samples[samples.length - 1]),
  };
}

/** What the hub may keep once every peer left, beyond its idle heap: the records written (a few KB each) and some slack. */
const KEPT_PER_WRITE = 4 * 1024;
const SLACK = 24 * 1024 * 1024;

/**
 * Whether the hub's memory came back: its heap after a full collection once
 * every peer left, against the idle hub's before any connected, may exceed it
 * only by the records the run wrote (KEPT_PER_WRITE each) and SLACK. A hub
 * that kept sockets, feeds or pages per peer fails it.
 */
export function heapPlateau(r: LoadResult): { idle: number; end: number; allowed: number; ok: boolean } {
  const collected = r.samples.filter((s) => s.hub.collected);
  const idle = collected.find((s) => s.phase === 'start')?.hub.heapUsed ?? 0;
  const end = collected[collected.length - 1]?.hub.heapUsed ?? Infinity;
  const allowed = idle + SLACK + r.writes.acked * KEPT_PER_WRITE;
  return { idle, end, allowed, ok: collected.length >= 2 && end <= allowed };
}

/** Op deliveries to peers (each write reaches every other peer) and their rate until the last peer converged. */
function fanOut(r: LoadResult): string {
  const deliveries = r.writes.acked * (r.options.peers - 1);
  const ms = r.writes.windowMs + (r.convergeMs ?? NaN);
  return `${deliveries} op deliveries to peers, ${(deliveries / (ms / 1000)).toFixed(0)}/s from the first write until every peer converged`;
}

function summary(r: LoadResult): string[] {
  const o = r.options;
  const perSecond = r.writes.acked / (r.writes.lastAckMs / 1000);
  const c = r.connect.ms;
  return [
    `syncom load: ${o.peers} socket.io peers (${o.full} full storages, ${o.peers - o.full} raw protocol peers) on one hub, ${o.writes} writes each in ${o.seconds} s`,
    `machine   ${r.machine.cores} cores, load average ${r.machine.loadBefore.toFixed(1)} before the run and ${r.machine.loadAfter.toFixed(1)} after (other work shares the cores)`,
    `connect   ramp ${s1(r.connect.wallMs)} s, ${o.ramp} at a time; per peer p50 ${percentile(c, 50).toFixed(0)} ms, p99 ${percentile(c, 99).toFixed(0)} ms, max ${percentile(c, 100).toFixed(0)} ms; failed: ${codes(r.connect.failed)}`,
    `writes    ${r.writes.acked} acknowledged, ${perSecond.toFixed(0)} writes/s (last ack ${s1(r.writes.lastAckMs)} s into the window); refused or failed: ${codes(r.writes.failed)}`,
    `fan-out   ${fanOut(r)}`,
    `delivery  from a write's ack to its arrival at each other raw peer: p50 ${r.delivery.p50.toFixed(0)} ms, p99 ${r.delivery.p99.toFixed(0)} ms, max ${r.delivery.max.toFixed(0)} ms; ${r.delivery.count} of ${r.delivery.expected} deliveries due`,
    `converge  ${r.convergeMs === undefined ? `${r.notConverged} peers did NOT converge` : `every peer held every stream ${s1(r.convergeMs)} s after the window`}; holes in streams: ${r.holes}`,
    `lost      ${r.check.problems.length === 0 ? 'nothing' : 'SEE PROBLEMS'}: ${r.check.ackedWrites} acknowledged writes, ${r.check.hubRecords} records at the hub; ${o.full} full peers compared record for record`,
    `close     sockets the hub still counts after every peer closed: ${r.socketsLeft}`,
    `tool      the load tool's processes kept ${r.tool.windowCores.toFixed(2)} cores busy in the write window, ${r.tool.settleCores.toFixed(2)} while settling (the raw peers' processes ${r.tool.rawCores.window.toFixed(2)} and ${r.tool.rawCores.settle.toFixed(2)}, the full peers' ${r.tool.fullCores.window.toFixed(2)} and ${r.tool.fullCores.settle.toFixed(2)}); they decoded ${r.tool.pages.decoded} pages whole, ${r.tool.pages.spliced} from a kept one and reused ${r.tool.pages.reused}`,
  ];
}

function delays(r: LoadResult): string[] {
  const out = [
    '', 'hub event-loop delay by phase (ms; hub cpu: cores the hub kept busy; tool p99: the load tool\'s own loop)',
    'phase     seconds   p50     p99     max    mean  hub cpu  tool p99',
  ];
  for (const p of r.phases) {
    const d = p.delay;
    const cols = [d.p50, d.p99, d.max, d.mean].map((x) => x.toFixed(1).padStart(7));
    out.push([p.phase.padEnd(9), s1(p.seconds * 1000).padStart(7), ...cols, p.hubCores.toFixed(2).padStart(8), p.toolP99.toFixed(1).padStart(9)].join(' '));
  }
  return out;
}

function rssTable(r: LoadResult): string[] {
  const out = ['', 'hub RSS over time (* heap after a full collection, at the end of each phase)', '    t s  phase     sockets  rss MB  heap MB  delay p99 so far  tool rss MB'];
  const every = Math.max(1, Math.ceil(r.samples.length / MAX_ROWS));
  r.samples.forEach((s, i) => {
    const last = i === r.samples.length - 1 || r.samples[i + 1].phase !== s.phase;
    if (i % every !== 0 && !last) return;
    const h = s.hub;
    out.push(`${s.t.toFixed(1).padStart(7)}  ${s.phase.padEnd(9)} ${String(h.sockets).padStart(7)} ${mb(h.rss).padStart(7)} ${(mb(h.heapUsed) + (h.collected ? '*' : ' ')).padStart(8)} ${h.delay.p99.toFixed(1).padStart(17)} ${mb(s.toolRss).padStart(12)}`);
  });
  const t = rssTrend(r.samples);
  const ends = r.samples.filter((x) => x.hub.collected).map((x) => `${x.phase} ${mb(x.hub.heapUsed)}`);
  out.push(`heap after a full collection at the end of each phase but the write window (its deliveries still on their way), MB: ${ends.join(', ')}`);
  const h = heapPlateau(r);
  out.push(`heap back to idle: ${h.ok ? 'yes' : 'NO'}: ${mb(h.end)} MB once every peer left, ${mb(h.idle)} MB idle, at most ${mb(h.allowed)} MB allowed (the records written and ${mb(SLACK)} MB)`);
  out.push(`RSS in the write window: ${mb(t.start)} MB at its start, peak ${mb(t.peak)} MB, ${mb(t.end)} MB at its end (${t.secondHalf >= 0 ? '+' : ''}${mb(t.secondHalf)} MB over its second half); ${mb(t.afterClose)} MB once every peer left`);
  return out;
}

/** The run as text: summary, delays by phase, RSS over time, problems. */
export function formatLoad(r: LoadResult): string {
  const problems = r.check.problems.length ? ['', 'PROBLEMS', ...r.check.problems.map((p) => `  ${p}`)] : [];
  return [...summary(r), ...delays(r), ...rssTable(r), ...problems].join('\n');
}

/** Whether the run lost nothing, every peer converged, the hub let every socket go and its heap came back. */
export function passed(r: LoadResult): boolean {
  return r.check.problems.length === 0 && r.convergeMs !== undefined && r.holes === 0 && r.socketsLeft === 0 && r.connect.failed.size === 0
    && heapPlateau(r).ok;
}

/** The headline figures of a run (`--out FILE`): what a user feels, beside what the hub spent. */
export interface LoadFigures {
  peers: number;
  procs: number;
  seconds: number;
  writesOffered: number;
  writesAcknowledged: number;
  /** From a write's ack at its writer to its arrival at each other raw peer, ms. */
  delivery: { p50: number; p99: number; max: number; count: number; expected: number };
  /** The hub's event-loop delay p99 over the write window, ms (and over the settle phase). */
  hubEventLoopP99Ms: number;
  /** The longest single stall over the write window: a p99 over a window stretched by late acks can hide it. */
  hubEventLoopMaxMs: number;
  hubEventLoopP99SettleMs: number;
  /** Cores the hub kept busy over the write window. */
  hubCpuCores: number;
  /** Cores the load tool's processes kept busy over the write window (they share the machine with the hub). */
  toolCpuCores: number;
  /** Of which the raw peers' processes (with --procs), over the write window and the settle phase. */
  rawPeersCpuCores: { window: number; settle: number };
  /** Of which the full peers' process (with --procs), over the write window and the settle phase. */
  fullPeersCpuCores: { window: number; settle: number };
  /** Pages the raw peers decoded, and pages they took already decoded for another peer of their process. */
  rawPeerPages: { decoded: number; spliced: number; reused: number };
  hubRssPeakMb: number;
  /** The hub's RSS once every peer left. */
  hubRssAfterMb: number;
  /** Writes offered that were never acknowledged (refused, or the peer's socket dropped): not lost, never made. */
  writesFailed: number;
  /** Acknowledged writes the hub does not hold (0 expected), and deliveries due that never came. */
  lostWrites: number;
  lostDeliveries: number;
  /** Peers that did not come to hold every write within the settle bound, and peers that failed to connect. */
  notConverged: number;
  connectFailed: number;
  converged: boolean;
  passed: boolean;
}

export function loadFigures(r: LoadResult, offered: number): LoadFigures {
  const phase = (name: string) => r.phases.find((p) => p.phase === name);
  const rss = r.samples.map((s) => s.hub.rss);
  const round = (x: number) => Math.round(x * 10) / 10;
  const cores = (x: number) => Math.round(x * 100) / 100;
  return {
    peers: r.options.peers, procs: r.options.procs ?? 0, seconds: r.options.seconds,
    writesOffered: offered, writesAcknowledged: r.writes.acked,
    delivery: { p50: round(r.delivery.p50), p99: round(r.delivery.p99), max: round(r.delivery.max), count: r.delivery.count, expected: r.delivery.expected },
    hubEventLoopP99Ms: round(phase('writes')?.delay.p99 ?? NaN), hubEventLoopMaxMs: round(phase('writes')?.delay.max ?? NaN), hubEventLoopP99SettleMs: round(phase('settle')?.delay.p99 ?? NaN),
    hubCpuCores: round(phase('writes')?.hubCores ?? NaN), toolCpuCores: cores(r.tool.windowCores),
    rawPeersCpuCores: { window: cores(r.tool.rawCores.window), settle: cores(r.tool.rawCores.settle) }, rawPeerPages: r.tool.pages,
    fullPeersCpuCores: { window: cores(r.tool.fullCores.window), settle: cores(r.tool.fullCores.settle) },
    hubRssPeakMb: Math.round(Math.max(0, ...rss) / 1024 / 1024), hubRssAfterMb: Math.round((rss[rss.length - 1] ?? 0) / 1024 / 1024),
    writesFailed: Math.max(0, offered - r.writes.acked), lostWrites: Math.max(0, r.writes.acked - r.check.hubRecords),
    lostDeliveries: Math.max(0, r.delivery.expected - r.delivery.count),
    notConverged: r.notConverged, connectFailed: [...r.connect.failed.values()].reduce((a, b) => a + b, 0),
    converged: r.convergeMs !== undefined, passed: passed(r),
  };
}

import type { Attributes, BatchObservableResult, Meter, ObservableGauge } from '@opentelemetry/api';
import { ATTRS, METRICS, type Role } from './names';

/** One peer as the gauges see it. */
export interface PeerGauge {
  /** As the counters are given it (a dialer's registered url, a host's node id): labelled at collection, as they label it. */
  peer: string;
  role: Role;
  connected: boolean;
  /** Ops the peer is behind this node; absent when unknown (a host never greeted). */
  lag?: number;
}

/** What the gauges read at collection time, never before. */
export interface GaugeSource {
  /** False once the storage closed: its callback then unregisters. */
  live(): boolean;
  log(): { ops: number; floor: number };
  peers(): PeerGauge[];
}

/** A lag series: its attributes and the lag it reads at this collection. */
interface LagSeries {
  attributes: Attributes;
  lag: number;
}

/**
 * The sync.lag series of one collection, by role and label: the peers `label`
 * names (the counters' choice, MAX_PEER_LABELS of them) each on its own, every
 * other one under the counters' catch-all, which carries the largest lag of
 * them (the peer an alert on lag is about).
 */
function lagSeries(peers: readonly PeerGauge[], base: Attributes, label: (peer: string) => string): Map<string, LagSeries> {
  const series = new Map<string, LagSeries>();
  for (const p of peers) {
    if (p.lag === undefined) continue;
    const peer = label(p.peer);
    const key = `${p.role}\n${peer}`;
    const had = series.get(key);
    if (had) had.lag = Math.max(had.lag, p.lag);
    else series.set(key, { attributes: { ...base, [ATTRS.role]: p.role, [ATTRS.peer]: peer }, lag: p.lag });
  }
  return series;
}

/**
 * Register syncom's observable gauges for one storage: log.ops, log.floor,
 * peers.connected and sync.lag, computed in one callback per collection so
 * nothing is counted on the write path. The meter holds the source only
 * weakly (the storage holds it), so a storage dropped without close() does
 * not stay alive in the app's MeterProvider. `label` is the counters' peer
 * label, so the lag names the peers they name (docs/api.md#telemetry).
 */
export function observeGauges(meter: Meter, base: Attributes, source: GaugeSource, label: (peer: string) => string): void {
  const logOps = meter.createObservableGauge(METRICS.logOps, { description: 'Ops retained in the log', unit: '{op}' });
  const logFloor = meter.createObservableGauge(METRICS.logFloor, { description: 'The log position below which retention dropped ops' });
  const connected = meter.createObservableGauge(METRICS.peersConnected, { description: 'Peers connected, by role', unit: '{peer}' });
  const lag = meter.createObservableGauge(METRICS.syncLag, { description: 'Ops a peer is behind this node', unit: '{op}' });
  const all: ObservableGauge[] = [logOps, logFloor, connected, lag];
  const ref = new WeakRef(source);
  // Every lag series observed so far. A cumulative reader (Prometheus') exports a series it was once given at every
  // scrape, with its last value: one whose peers are no longer live (feed ended, dialed hub disconnected) reads 0 so
  // that an alert on lag clears, rather than holding the lag it last had. Bounded as the labels are.
  const seen = new Map<string, Attributes>();
  const callback = (r: BatchObservableResult) => {
    const s = ref.deref();
    if (!s?.live()) {
      // Deferred: the SDK is iterating its callbacks right now.
      queueMicrotask(() => meter.removeBatchObservableCallback(callback, all));
      return;
    }
    const log = s.log();
    r.observe(logOps, log.ops, base);
    r.observe(logFloor, log.floor, base);
    const peers = s.peers();
    for (const role of ['dialer', 'host'] as const) {
      r.observe(connected, peers.filter((p) => p.role === role && p.connected).length, { ...base, [ATTRS.role]: role });
    }
    const live = lagSeries(peers, base, label);
    for (const [key, attributes] of seen) if (!live.has(key)) r.observe(lag, 0, attributes);
    for (const [key, s] of live) {
      seen.set(key, s.attributes);
      r.observe(lag, s.lag, s.attributes);
    }
  };
  meter.addBatchObservableCallback(callback, all);
}

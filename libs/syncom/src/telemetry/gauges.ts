import type { Attributes, BatchObservableResult, Meter, ObservableGauge } from '@opentelemetry/api';
import { ATTRS, METRICS, type Role } from './names';

/** One peer as the gauges see it. */
export interface PeerGauge {
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

/**
 * Register syncom's observable gauges for one storage: log.ops, log.floor,
 * peers.connected and sync.lag, computed in one callback per collection so
 * nothing is counted on the write path. The meter holds the source only
 * weakly (the storage holds it), so a storage dropped without close() does
 * not stay alive in the app's MeterProvider.
 */
export function observeGauges(meter: Meter, base: Attributes, source: GaugeSource): void {
  const logOps = meter.createObservableGauge(METRICS.logOps, { description: 'Ops retained in the log', unit: '{op}' });
  const logFloor = meter.createObservableGauge(METRICS.logFloor, { description: 'The log position below which retention dropped ops' });
  const connected = meter.createObservableGauge(METRICS.peersConnected, { description: 'Peers connected, by role', unit: '{peer}' });
  const lag = meter.createObservableGauge(METRICS.syncLag, { description: 'Ops a peer is behind this node', unit: '{op}' });
  const all: ObservableGauge[] = [logOps, logFloor, connected, lag];
  const ref = new WeakRef(source);
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
    for (const p of peers) if (p.lag !== undefined) r.observe(lag, p.lag, { ...base, [ATTRS.role]: p.role, [ATTRS.peer]: p.peer });
  };
  meter.addBatchObservableCallback(callback, all);
}

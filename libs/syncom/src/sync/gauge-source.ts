import { parseEventId } from '../log';
import type { Replica } from '../storage/replica';
import type { GaugeSource, PeerGauge } from '../telemetry';
import type { Dialer } from './dial/dialer';
import { vectorLag } from './protocol/lag';
import { allowedScopes } from './protocol/scopes';

/** A hosted feed as the gauges read it: its peer and its cursor in this log. */
interface HostedFeed {
  node: string;
  cursor: string;
}

/** One gauge per hosted node (a node may hold several feeds): its lag is the farthest behind of them. */
function hostedGauges(hosted: readonly HostedFeed[], log: Replica): PeerGauge[] {
  const lag = new Map<string, number>();
  for (const f of hosted) {
    // A feed's cursor is a position in this log: what lies past it is not sent yet.
    const behind = log.head - (parseEventId(f.cursor)?.seq ?? log.head);
    lag.set(f.node, Math.max(lag.get(f.node) ?? 0, behind));
  }
  return [...lag].map(([peer, n]) => ({ peer, role: 'host', connected: true, lag: n }));
}

/**
 * One gauge per dialed host; its lag is known while it is connected, by the vector it last answered.
 * Its peer is the registered url, as the counters are given it: the telemetry labels both alike,
 * without the url's credentials (whoever scrapes the metrics must not read them).
 */
function dialerGauges(dialers: Iterable<Dialer>, log: Replica): PeerGauge[] {
  return [...dialers].map((d) => {
    const host = d.rec.remote.id;
    const lag = d.connected && host ? vectorLag(log.vector, d.hv, { host, allowed: allowedScopes(d.rec.scopes) }) : undefined;
    return { peer: d.rec.url, role: 'dialer', connected: d.connected, lag };
  });
}

/**
 * What syncom's gauges read of a storage, at collection time:
 * the log's size and floor, the dialed hosts and the hosted peers. The
 * manager holds it; the meter only weakly.
 */
export function gaugeSource(log: Replica, dialers: () => Iterable<Dialer>, hosted: () => HostedFeed[]): GaugeSource {
  return {
    live: () => !log.isClosed,
    log: () => ({ ops: log.head - log.floor, floor: log.floor }),
    peers: () => [...dialerGauges(dialers(), log), ...hostedGauges(hosted(), log)],
  };
}

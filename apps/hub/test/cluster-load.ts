import type { Vector } from 'syncom';
import { Delivery, mergeDelivery, summarize, type DeliverySummary } from '../../../scripts/load/delivery';
import { PeerProcs, type ProcsSettled } from '../../../scripts/load/peer-procs';
import { bundlePeerProc } from './cluster-peer-bundle';

/** The parent's end of the peers' ack relay: it counts each writer's acknowledged writes (the expected vector). */
class AckCount extends Delivery {
  readonly acked = new Map<string, number>();
  override ack(key: string, at: number): void {
    super.ack(key, at);
    const node = key.slice(0, key.lastIndexOf('#'));
    this.acked.set(node, (this.acked.get(node) ?? 0) + 1);
  }
}

/** `p`, or a rejection saying `what` after `ms`. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms); });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the peers came to once settled: the delivery from ack to each other peer, and what went wrong. */
export interface ClusterSummary extends DeliverySummary {
  /** Deliveries due: acknowledged writes x the other peers. */
  expected: number;
  holes: number;
  /** Refusals and failures by code, resubscriptions and redials included. */
  errors: Record<string, number>;
  /** Arrivals whose write's ack never became known. */
  unmatched: number;
  /** CPU time of every peer process, ms. */
  cpuMs: number;
  /** The delivery to the peers of each url, in connect()'s order. */
  byHub: DeliverySummary[];
}

/**
 * Raw protocol peers of the load tool spread over some hubs of a cluster,
 * writing through a window while the test does something to the cluster
 * (kills a hub). The peers run in child processes (scripts/load/peer-procs.ts,
 * CLUSTER_PROCS per hub, one by default, forked from a bundle), so the test process only
 * coordinates: at 1,500 peers a hub, peers in the test's own event loop were
 * what kept the cluster from converging. CLUSTER_PEERS per hub and
 * CLUSTER_SECONDS size it: a few for CI, more under `npm run test:hunt`,
 * 1,500 per hub for the full form.
 */
export class ClusterLoad {
  private readonly acks = new AckCount();
  private procs?: PeerProcs;
  private settled?: ProcsSettled;
  private count = 0;
  private hubs = 0;
  /** How many of the peers write. */
  writers = 0;
  private removeBundle = () => undefined as void;

  constructor(readonly perHub: number, readonly seconds: number, readonly writes: number, readonly procsPerHub = Number(process.env.CLUSTER_PROCS ?? 1)) {}

  /** How many peers there are. */
  get peers(): number {
    return this.count;
  }

  /**
   * Connects `perHub` peers to each url (socket up, hello, feed open), 50 at a
   * time on each hub. The peers of `readers` (urls) only read: those of a hub
   * the test kills, whose writes would fail while it is down, but which must
   * redial it and resubscribe from the last page they took.
   */
  async connect(urls: string[], token: string, readers: string[] = []): Promise<void> {
    this.hubs = urls.length;
    this.count = urls.length * this.perHub;
    const indices = Array.from({ length: this.count }, (_, i) => i);
    // Process k dials urls[k % urls.length] and takes every n-th index, so index i is on urls[i % urls.length].
    const n = urls.length * this.procsPerHub;
    const writesOf = (i: number) => (readers.includes(urls[i % urls.length]) ? 0 : this.writes);
    this.writers = indices.filter((i) => writesOf(i) > 0).length;
    const bundle = await bundlePeerProc();
    this.removeBundle = bundle.remove;
    // Bounded (the start bounds itself): a peer process that never answers must fail the test with a reason, not hang it.
    this.procs = await PeerProcs.start(n, indices, writesOf, { url: urls, token, ramp: 50 * urls.length, seconds: this.seconds, script: bundle.script }, this.acks);
    const c = await within(this.procs.ramp(), 120_000 + 40 * this.count, `the ${this.count} peers did not all connect`);
    if (c.failed.size > 0) throw new Error(`peers did not connect: ${JSON.stringify([...c.failed])}`);
  }

  /** Every writing peer writes `writes` times at random moments of `seconds`; resolves once every write is answered. */
  write(): Promise<unknown> {
    return this.started().write();
  }

  /** The streams the peers' acknowledged writes make (what every hub must hold). */
  expected(): Vector {
    return Object.fromEntries(this.acks.acked);
  }

  /** How many peers did not come to hold `vector` within `ms` (the figures of summary() are taken then). */
  async notConverged(vector: Vector, ms: number): Promise<number> {
    this.settled = await this.started().settle(vector, ms);
    return this.settled.notConverged;
  }

  /** Delivery from ack to each other peer, ms, and the deliveries due; after notConverged(). */
  summary(): ClusterSummary {
    const s = this.settled;
    if (!s) throw new Error('summary() before notConverged()');
    const acked = [...this.acks.acked.values()].reduce((a, b) => a + b, 0);
    const merged = mergeDelivery(s.delivery);
    // The figures come in process order, and process k dials urls[k % urls.length].
    const byHub = Array.from({ length: this.hubs }, (_, h) => summarize(mergeDelivery(s.delivery.filter((_, k) => k % this.hubs === h))));
    return { ...summarize(merged), expected: acked * (this.count - 1), holes: s.holes, errors: Object.fromEntries(s.errors), unmatched: merged.unmatched, cpuMs: s.cpuMs, byHub };
  }

  async close(): Promise<void> {
    await this.procs?.close();
    this.removeBundle();
  }

  private started(): PeerProcs {
    if (!this.procs) throw new Error('connect() first');
    return this.procs;
  }
}

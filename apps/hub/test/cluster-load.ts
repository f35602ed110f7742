import type { Vector } from 'syncom';
import { Delivery, summarize, type DeliverySummary } from '../../../scripts/load/delivery';
import { converged, rampUp, writeFor } from '../../../scripts/load/peers';
import { RawPeer } from '../../../scripts/load/raw-peer';

/**
 * Raw protocol peers of the load tool spread over some hubs of a cluster,
 * writing through a window while the test does something to the cluster
 * (kills a hub). CLUSTER_PEERS per hub and CLUSTER_SECONDS size it: a few for
 * CI, more under `npm run test:hunt`, 1,500 per hub for the full form.
 */
export class ClusterLoad {
  readonly delivery = new Delivery();
  readonly peers: RawPeer[] = [];

  constructor(readonly perHub: number) {}

  /** Connects `perHub` peers to each url (socket up, hello, feed open). */
  async connect(urls: string[], token: string): Promise<void> {
    for (const url of urls) {
      const some = Array.from({ length: this.perHub }, (_, i) => new RawPeer(this.peers.length + i, this.delivery));
      this.peers.push(...some);
      const c = await rampUp(some, url, token, 50);
      if (c.failed.size > 0) throw new Error(`peers of ${url} did not connect: ${[...c.failed].join(', ')}`);
    }
  }

  /** Every peer writes `writes` times at random moments of `seconds`; resolves once every write is answered. */
  write(seconds: number, writes: number): Promise<unknown> {
    return writeFor(this.peers, seconds, writes);
  }

  /** The streams the peers' acknowledged writes make (what every hub must hold). */
  expected(): Vector {
    return Object.fromEntries(this.peers.filter((p) => p.acked.length > 0).map((p) => [p.node, p.acked.length]));
  }

  /** How many peers did not come to hold `vector` within `ms`. */
  async notConverged(vector: Vector, ms: number): Promise<number> {
    let done = 0;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); });
    await Promise.race([Promise.all(this.peers.map((p) => converged(p, vector).then(() => done++))), late]);
    clearTimeout(timer);
    return this.peers.length - done;
  }

  /** Delivery from ack to each other peer, ms, and the deliveries due (acked writes x other peers). */
  summary(): DeliverySummary & { expected: number; holes: number; errors: number } {
    const acked = this.peers.reduce((n, p) => n + p.acked.length, 0);
    const errors = this.peers.reduce((n, p) => n + [...p.errors.values()].reduce((a, b) => a + b, 0), 0);
    return { ...summarize(this.delivery.figures()), expected: acked * (this.peers.length - 1), holes: this.peers.reduce((n, p) => n + p.holes, 0), errors };
  }

  close(): void {
    for (const p of this.peers) p.close();
  }
}

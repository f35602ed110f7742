import type { Channel } from './sim-network';
import type { SimNode } from './sim-node';
import { newerWrite } from './sim-holds';
import { drawWrite } from './sim-ops';
import type { Simulation } from './simulation';

/** Of the inputs of a step, how many are writes rather than deliveries. */
const WRITE_RATE = 0.25;

/** A channel, latency-weighted: a link with delay is passed over more often. */
function pick(sim: Simulation, ready: Channel[]): Channel {
  const weights = ready.map((ch) => 1 - 0.9 * ch.faults.delay);
  let r = sim.rng.next() * weights.reduce((a, b) => a + b, 0);
  for (const [i, w] of weights.entries()) if ((r -= w) < 0) return ready[i];
  return ready[ready.length - 1];
}

/** One to three writes issued together on one node (they share a log append); returns how many. */
function burst(sim: Simulation, node: SimNode, left: number): number {
  const { rng, stats, trace, net, settings } = sim;
  const n = Math.min(left, rng.chance(0.3) ? rng.range(2, 3) : 1);
  for (let i = 0; i < n; i++) {
    let w = newerWrite(sim, node, drawWrite(rng, settings.keys));
    if (settings.sealed && w.id.startsWith('r') && rng.chance(0.25)) w = { ...w, id: `s${node.index}`, sealed: true };
    const issued = node.write(w);
    stats.writes++;
    trace.record('write', node.index, w.kind, w.id, w.field, w.value, issued.call, issued.op?.seq ?? '-');
    net.track(issued.done);
  }
  return n;
}

/**
 * Hand up to `parallel` inputs to distinct nodes: writes (while `left` lasts)
 * or deliveries. One input per node per step, so what each node does with
 * it cannot depend on how its work interleaves with another input's.
 * Returns how many writes were issued.
 */
export function handInputs(sim: Simulation, left: number): number {
  const busy = new Set<number>();
  let writes = 0;
  for (let i = sim.rng.range(1, sim.settings.parallel); i > 0; i--) {
    const ready = sim.net.ready(busy);
    // The scope-A reader never writes (with scopes on).
    const idle = sim.nodes.filter((n) => !busy.has(n.index) && n.index !== sim.scoped);
    if (writes < left && idle.length > 0 && (ready.length === 0 || sim.rng.chance(WRITE_RATE))) {
      const node = sim.rng.pick(idle);
      busy.add(node.index);
      writes += burst(sim, node, left - writes);
    } else if (ready.length > 0) {
      const ch = pick(sim, ready);
      busy.add(ch.target);
      sim.net.deliver(ch, sim.rng);
    }
  }
  return writes;
}

import { MAX_ROUNDS } from './sim-options';
import type { Simulation } from './simulation';

/**
 * Deliver everything, with no faults, firing timers whenever nothing is
 * queued, until no packet waits and no timer is pending. Each round hands
 * one packet to each node that has one, then waits until all are idle.
 *
 * @throws Error naming the seed when the network never goes quiet (a livelock).
 */
export async function drain(sim: Simulation): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    await sim.quiesce();
    await sim.reap();
    if (sim.net.queued === 0) {
      const next = sim.timers.next();
      if (next === undefined) return;
      await sim.advance(next - sim.timers.now);
      continue;
    }
    const busy = new Set<number>();
    for (const ch of sim.net.ready(busy)) {
      if (busy.has(ch.target)) continue;
      busy.add(ch.target);
      sim.net.deliver(ch, sim.rng, false);
    }
  }
  throw new Error(`seed ${sim.seed}: the network never went quiet`);
}

/**
 * Heal the run: no faults, no partition, no armed crash, every link cut and
 * restored (so each dialer greets and pushes again, PROTO-13), everything
 * delivered; then every node's sync() (LIFE-3) and quiet again.
 */
export async function heal(sim: Simulation): Promise<void> {
  sim.trace.record('heal');
  for (const n of sim.nodes) n.backend.clearFaults();
  sim.armed.clear();
  sim.partition = undefined;
  sim.calm();
  for (const l of sim.liveLinks()) {
    l.cut();
    l.restore();
  }
  await drain(sim);
  // sync() resolves once its pushes are answered, so the network must be drained meanwhile.
  const syncing = Promise.all(sim.nodes.map((n) => n.storage.sync.sync()));
  await drain(sim);
  await syncing;
  await drain(sim);
}

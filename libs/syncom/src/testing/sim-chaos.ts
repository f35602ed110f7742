import { type CrashDamage, IO_POINTS } from '../backend';
import { holdStep } from './sim-holds';
import { purgeStep } from './sim-purge';
import type { Simulation } from './simulation';

/** The damages a crash may leave on what was not synced; 'none' is a process crash. */
export const DAMAGES: readonly CrashDamage[] = ['none', 'lost', 'torn', 'zeroed', 'reordered'];

/**
 * Draw the faults of the links from one node to another: drop, duplicate,
 * latency and reorder within the run's bounds; a quarter of the time, none.
 */
export function drawFaults(sim: Simulation, from: number, to: number): void {
  const { rng, settings } = sim;
  const calm = rng.chance(0.25);
  const f = sim.faultsOf(from, to);
  f.drop = calm ? 0 : rng.next() * settings.drop;
  f.duplicate = calm ? 0 : rng.next() * settings.duplicate;
  f.delay = calm ? 0 : rng.next();
  f.reorder = !calm && rng.chance(0.5);
  sim.trace.record('faults', `${from}-${to}`, f.drop.toFixed(3), f.duplicate.toFixed(3), f.delay.toFixed(3), f.reorder);
}

/** New faults for one live link's pair of nodes. */
function redraw(sim: Simulation): void {
  const live = sim.liveLinks();
  if (live.length === 0) return;
  const l = sim.rng.pick(live);
  drawFaults(sim, l.o.from, l.o.to);
}

function cut(sim: Simulation): void {
  const up = sim.liveLinks().filter((l) => l.connected);
  if (up.length === 0) return;
  const l = sim.rng.pick(up);
  sim.stats.cuts++;
  sim.trace.record('cut', l.o.name);
  l.cut();
}

function restore(sim: Simulation): void {
  const down = sim.liveLinks().filter((l) => !l.connected && !sim.separates(l.o.from, l.o.to));
  if (down.length === 0) return;
  const l = sim.rng.pick(down);
  sim.trace.record('restore', l.o.name);
  l.restore();
}

/** Split the nodes in two and cut every link across; or, when split, heal it and reconnect those links. */
function partition(sim: Simulation): void {
  const { rng, nodes } = sim;
  if (sim.partition) {
    const across = sim.liveLinks().filter((l) => sim.separates(l.o.from, l.o.to));
    sim.partition = undefined;
    sim.trace.record('rejoin');
    for (const l of across) l.restore();
    return;
  }
  const side = new Set(rng.shuffle(nodes.map((n) => n.index)).slice(0, rng.range(1, nodes.length - 1)));
  sim.partition = side;
  sim.stats.partitions++;
  sim.trace.record('partition', ...[...side].sort());
  for (const l of sim.liveLinks()) if (sim.separates(l.o.from, l.o.to)) l.cut();
}

/** Crash a node now, or arm its disk to die at one of its next I/O points (fsyncs included). */
async function crash(sim: Simulation): Promise<void> {
  const { rng } = sim;
  const node = rng.pick(sim.nodes);
  const damage = rng.pick(DAMAGES);
  if (rng.chance(0.5)) return sim.reboot(node.index, damage);
  const k = rng.range(1, 40);
  sim.armed.set(node.index, damage);
  sim.trace.record('arm', node.index, k, damage);
  node.backend.crashAt(k, { ops: IO_POINTS });
}

/** Anti-entropy now on one node (storage.sync.forceSync): its dialers reconcile with their hosts over the faulty network. */
function reconcile(sim: Simulation): void {
  const node = sim.rng.pick(sim.nodes);
  sim.trace.record('reconcile', node.index);
  // Not awaited: it resolves once the network has carried every round, which later steps deliver.
  node.storage.sync.forceSync().catch(() => undefined);
}

/** A jump in time: the dialers' recovery backoff timers (HOST-17) come due. */
function jump(sim: Simulation): Promise<void> {
  const ms = sim.rng.range(500, 5_000);
  sim.trace.record('jump', ms);
  return sim.advance(ms);
}

/** One fault step, drawn by the run's rng. */
export async function runChaos(sim: Simulation): Promise<void> {
  const { settings, rng } = sim;
  const kinds = ['faults', 'faults', 'jump', 'reconcile'];
  if (settings.partitions) kinds.push('cut', 'cut', 'restore', 'restore', 'restore', 'partition');
  if (settings.crashes) kinds.push('crash');
  if (settings.purges) kinds.push('purge', 'purge', 'purge', 'purge');
  if (settings.holds) kinds.push('hold', 'hold');
  const kind = rng.pick(kinds);
  if (kind === 'faults') redraw(sim);
  else if (kind === 'cut') cut(sim);
  else if (kind === 'restore') restore(sim);
  else if (kind === 'partition') partition(sim);
  else if (kind === 'crash') await crash(sim);
  else if (kind === 'reconcile') reconcile(sim);
  else if (kind === 'purge') purgeStep(sim);
  else if (kind === 'hold') holdStep(sim);
  else await jump(sim);
}

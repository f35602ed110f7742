import { internals } from './internals';
import { isEntry } from '../crdt';
import { FLAG_HELD, FLAG_SKIPPED, isScrubbed } from '../op';
import type { LogEntry } from '../log/op-log';
import type { SchemaOptions } from '../schema/types';
import type { SimNode } from './sim-node';
import type { SimWrite } from './sim-ops';
import { heal } from './sim-heal';
import type { Simulation } from './simulation';

/** The version the holder runs until the end of the run, and the one the newer node stamps. */
const OLD = 1;
const NEW = 2;

/**
 * A schema of the simulation: no record types (every record passes
 * validation unchanged), only the version ops are stamped with and what a
 * peer's op of a newer version does (the default, 'hold').
 */
export const simSchema = (version: number): SchemaOptions => ({ version, types: {}, ahead: 'hold' });

/**
 * The two nodes of a run with `holds` on: the holder runs version 1 with
 * ahead 'hold', the newer node version 2; every other node runs no schema,
 * so its ops carry no version and apply everywhere (the oracle needs no
 * schema). In a star the holder is the first client and the newer node the
 * second; in a mesh the holder is a middle node (it hosts the nodes below
 * it, dials those above, so ops reach it pushed, fed, reconciled and
 * bootstrapped) and the newer node the last.
 *
 * @throws Error with scopes on too (the scope reader never writes), or too few nodes for two roles.
 */
export function holdRoles(s: { holds: boolean; scopes: boolean; topology: string }, count: number): { holder: number; newer: number } | undefined {
  if (!s.holds) return undefined;
  // The scope-A reader never writes, and the two roles need two distinct nodes besides a star's hub.
  if (s.scopes) throw new Error('simulation: holds and scopes cannot be combined');
  if (count < (s.topology === 'star' ? 3 : 2)) throw new Error('simulation: holds needs two nodes (two clients in a star)');
  return s.topology === 'star' ? { holder: 1, newer: 2 } : { holder: Math.floor((count - 1) / 2), newer: count - 1 };
}

/** The schema a node opens with at the start of a run (none without `holds`, and for the nodes outside the two roles). */
export function schemaAt(sim: Simulation, index: number): SchemaOptions | undefined {
  const roles = sim.holds;
  if (!roles) return undefined;
  return index === roles.holder ? simSchema(OLD) : index === roles.newer ? simSchema(NEW) : undefined;
}

/**
 * The newer node writes whole records only (a set of an r-record): a record
 * remembers only the version of its last whole-record write, so a v2 update
 * joined as state by a node holding no op of that record would apply there
 * (the documented limit); whole-record writes keep the check exact.
 */
export function newerWrite(sim: Simulation, node: SimNode, w: SimWrite): SimWrite {
  if (node.index !== sim.holds?.newer) return w;
  return { ...w, kind: 'set', id: w.id.startsWith('r') ? w.id : `r${w.value % sim.settings.keys.records}` };
}

/**
 * A hold step (with `holds` on): the v1 node reconciles now, so v2 state
 * reaches it joined (a held merge) as well as by its ops.
 */
export function holdStep(sim: Simulation): void {
  const node = sim.nodes[sim.holds?.holder ?? 0];
  sim.trace.record('hold', node.index);
  // Not awaited: it resolves once the network carried every round, which later steps deliver.
  node.storage.sync.forceSync().catch(() => undefined);
}

/** Whether a log entry carries state of the newer version without being held. */
function appliedNewer(e: LogEntry): boolean {
  // Held, or an op on a purged record (logged scrubbed and skipped), or a purge (never held: it carries no state
  // of any version): none of these applied state of version 2. Another skipped op still counts.
  if (e.flags & FLAG_HELD || (e.flags & FLAG_SKIPPED && isScrubbed(e.op)) || e.op.type === 'purge') return false;
  const data = e.op.data as { v?: number } | undefined;
  const joined = e.op.type === 'merge' && isEntry(e.op.data, e.op.id) ? data?.v ?? 0 : 0;
  return (e.op.v ?? 0) > OLD || joined > OLD;
}

/** Whether the holder still runs the old version (it is upgraded after healing). */
const holding = (sim: Simulation, node: SimNode): boolean => node.index === sim.holds?.holder && !sim.upgraded;

/**
 * Watch what the holder's log appends: an op or a joined state of version 2
 * logged without the held flag is applied (GUAR-26). Held ones are counted.
 */
export function watchHolder(sim: Simulation, node: SimNode): void {
  if (!holding(sim, node)) return;
  const log = internals(node.storage).log;
  log.appended.add((from, to) => {
    for (const e of log.read(from - 1, to - from + 1)) {
      if (e.flags & FLAG_HELD) sim.stats.held = (sim.stats.held ?? 0) + 1;
      if (e.flags & FLAG_HELD && e.op.type === 'merge') sim.stats.heldMerges = (sim.stats.heldMerges ?? 0) + 1;
      if (appliedNewer(e) && sim.holdProblems.length < 8) sim.holdProblems.push(`step ${sim.stats.steps}: the v1 node logged ${e.op.type} ${e.op.id} of v2 unheld (${e.op.origin.slice(0, 8)}#${e.op.seq})`);
    }
  });
}

/**
 * After each step (the nodes idle): the holder shows no record whose meta.v
 * is 2 — nothing of version 2 applied, whether it came as an op, a snapshot
 * page, a reconciliation or an incremental bootstrap.
 */
export function checkHeldNow(sim: Simulation): void {
  const roles = sim.holds;
  if (!roles || sim.upgraded || sim.holdProblems.length >= 8) return;
  for (const [id, e] of internals(sim.nodes[roles.holder].storage).committer.committed) {
    if ((e.v ?? 0) > OLD) sim.holdProblems.push(`step ${sim.stats.steps}: the v1 node holds ${id} at meta.v ${e.v}`);
  }
}

/**
 * After healing: the holder reopens with version 2 (a reboot that loses
 * nothing), its held ops and states land, and the run heals again so it
 * converges like every other node.
 */
export async function upgradeHolder(sim: Simulation): Promise<void> {
  const roles = sim.holds;
  if (!roles) return;
  checkHeldNow(sim);
  sim.upgraded = true;
  sim.nodes[roles.holder].schema = simSchema(NEW);
  await sim.reboot(roles.holder, 'none');
  await heal(sim);
}

import { internals } from './internals';
import { entryDigest } from '../reconcile';
import { drain } from './sim-heal';
import type { Simulation } from './simulation';

/**
 * The scope of a simulated record (with `scopes` on): field a of a record
 * r<k> decides, so a write of a moves it — 1 puts it in A, 2 in B, anything
 * else in the global scope; records move between scopes all the time.
 * Counter records c<k> move too: one origin's increments of a record then
 * travel in several scope streams and arrive in whatever order those allow,
 * which a counter must sum all the same.
 */
export function simScope(id: string, data: Record<string, unknown>): string {
  if (!id.startsWith('r') && !id.startsWith('c')) return '*';
  return data.a === 1 ? 'A' : data.a === 2 ? 'B' : '*';
}

/** The node that carries only scope A (with `scopes` on, in a star: the last client); it reads, never writes. */
export function scopedIndex(s: { scopes: boolean; topology: string }, count: number): number | undefined {
  return s.scopes && s.topology === 'star' ? count - 1 : undefined;
}

/** The nodes the full-replica checks compare: all but the scoped reader. */
export function fullNodes(sim: Simulation): Simulation['nodes'] {
  return sim.nodes.filter((n) => n.index !== sim.scoped);
}

/**
 * Anti-entropy never stalls a stream (SCOPE-14, SCOPE-19): the hub refused
 * nothing the whole run though records kept moving out of the reader's
 * scope under its reconciliations; and once the reader reconciles after
 * healing, it holds every record of A and of the global scope as the hub
 * does (the ops it was sent carry only what each op changed; reconciliation
 * brings the rest). Records the hub holds in B are left out: the reader may
 * keep a stale copy of one that moved away (the move's op is of B); but not
 * of one the hub purged since, whatever its scope.
 */
export async function scopeProblems(sim: Simulation): Promise<string[]> {
  if (sim.scoped === undefined) return [];
  const problems: string[] = [];
  const reader = sim.nodes[sim.scoped].storage;
  const syncing = reader.sync.forceSync();
  await drain(sim);
  await syncing;
  await drain(sim);
  if (sim.stats.refused) problems.push(`the hub refused ${sim.stats.refused} op(s) as out of scope`);
  const stalled = sim.stats.errors.OUT_OF_SCOPE ?? 0;
  if (stalled) problems.push(`${stalled} error(s) OUT_OF_SCOPE: a stream stopped at a refusal`);
  const hub = sim.nodes[0].storage;
  for (const [id, e] of internals(hub).committer.committed) {
    const mine = internals(reader).committer.committed.get(id);
    // A record purged at the hub is erased at the reader too, whatever scope it was purged in (its purge op may be
    // of B, which the reader never receives): reconciliation serves the purge's marker to a peer that names the id.
    if (e.purged && mine && !mine.purged) problems.push(`the A reader still holds ${id}, purged at the hub (scope ${hub.scopeOf(id)} there)`);
    // A record sealed at the hub never leaves it (GUAR-19, the sealed option).
    if (hub.scopeOf(id) === 'B' || hub.sealed.has(id)) continue;
    if (!mine || entryDigest(mine) !== entryDigest(e)) problems.push(`the A reader holds ${id} (scope ${hub.scopeOf(id)} at the hub) ${mine ? 'differently' : 'not at all'}`);
  }
  return problems;
}

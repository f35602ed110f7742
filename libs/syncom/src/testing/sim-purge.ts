import { internals } from './internals';
import { isPurgeMarkerOp } from '../log/seal';
import { hasPayload } from '../op';
import type { Storage } from '../storage/storage';
import type { MemoryBackend } from '../backend';
import type { Simulation } from './simulation';

/**
 * A purge step (runs with `purges` on): a node purges a record, and another
 * node reconciles at once (forceSync), so the purge can reach nodes as a
 * marker joined by reconciliation before its op does. A purge that did not
 * commit (a dying disk) is not counted.
 */
export function purgeStep(sim: Simulation): void {
  const { rng, nodes } = sim;
  const node = rng.pick(nodes.filter((n) => n.index !== sim.scoped));
  const other = rng.pick(nodes);
  const { keys, purgeCounters } = sim.settings;
  const id = purgeCounters && rng.chance(0.5) ? `c${rng.int(keys.counters)}` : `r${rng.int(keys.records)}`;
  sim.trace.record('purge', node.index, id, other.index);
  // Not awaited: each resolves once the network carried its traffic, which later steps deliver.
  node.storage.purge(id).then(() => void sim.purged.add(id), () => undefined);
  other.storage.sync.forceSync().catch(() => undefined);
}

/** Log entries of `id` that still carry a payload: only a purge marker's merge may (it holds none of the record). */
function unscrubbed(s: Storage, id: string): string[] {
  const log = internals(s).log;
  return log.read(log.floor).filter((e) => e.op.id === id && hasPayload(e.op) && !isPurgeMarkerOp(e.op)).map((e) => `${e.op.type} ${e.op.origin.slice(0, 8)}#${e.op.seq}`);
}

/**
 * After each step (the nodes idle): a node that holds a record purged keeps
 * no payload of it in its log, whether or not the purge's op has reached it
 * yet — a marker joined by reconciliation or bootstrap scrubs as the op does.
 * The first problems are kept for the checks; a node that crashed is left
 * out (a torn scrub is finished by a second purge, GUAR-22).
 */
export function checkScrubbedNow(sim: Simulation): void {
  if (sim.scrubProblems.length >= 8) return;
  for (const n of sim.nodes) {
    if (n.boots > 1) continue;
    for (const [id, e] of internals(n.storage).committer.committed) {
      if (!e.purged) continue;
      const logged = unscrubbed(n.storage, id);
      if (logged.length) sim.scrubProblems.push(`step ${sim.stats.steps}: node ${n.index} holds ${id} purged but its log keeps the payload of ${logged.join(', ')}`);
    }
  }
}

/** Record files holding `id` as more than its purge marker. */
function unscrubbedFiles(b: MemoryBackend, id: string): string[] {
  const out: string[] = [];
  for (const [path, text] of b.files()) {
    if (!path.startsWith('records/') || !text.includes(id)) continue;
    const entries = JSON.parse(text) as { id: string; purged?: unknown; fields?: object }[];
    if (entries.some((e) => e.id === id && (!e.purged || Object.keys(e.fields ?? {}).length > 0))) out.push(path);
  }
  return out;
}

/**
 * Purge is final on every path (OPS-10, OPS-11): every node holds each
 * purged record as purged, and no log entry or record file of it keeps its
 * payload, however the purge reached the node. A node that crashed is left
 * out of the scrub check: a crash mid-scrub leaves a torn one, which the spec
 * leaves to a second purge (GUAR-21, GUAR-22).
 */
export function purgeProblems(sim: Simulation): string[] {
  const problems = [...sim.scrubProblems];
  for (const n of sim.nodes) {
    for (const id of [...sim.purged].sort()) {
      // The scope-A reader need not hold a record it never had; one it holds, it holds purged (its reconciliation,
      // run first, is served the purge's marker whatever the record's scope).
      const held = internals(n.storage).committer.committed.get(id);
      if ((n.index !== sim.scoped || held) && !held?.purged) problems.push(`node ${n.index}: purged ${id} is not purged here`);
      if (n.boots > 1) continue;
      const logged = unscrubbed(n.storage, id);
      if (logged.length) problems.push(`node ${n.index}: ${logged.length} log entr(ies) of purged ${id} keep their payload: ${logged.slice(0, 3).join(', ')}`);
      const files = unscrubbedFiles(n.backend, id);
      if (files.length) problems.push(`node ${n.index}: record files keep purged ${id}: ${files.join(', ')}`);
    }
  }
  return problems;
}

/** Purges that reached a node as a marker merged by reconciliation or bootstrap (the path exercised), all nodes. */
export function markerMerges(sim: Simulation): number {
  let n = 0;
  for (const node of sim.nodes) {
    const log = internals(node.storage).log;
    n += log.read(log.floor).filter((e) => isPurgeMarkerOp(e.op)).length;
  }
  return n;
}

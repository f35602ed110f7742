import { internals } from './internals';
import { createMemoryBackend } from '../backend';
import { canonicalJson, packOps, unpackOps } from '../op';
import { opStreamKey, type Op, streamKey } from '../op/types';
import { open } from '../open';
import { applyPeerOps } from '../storage/peer';
import type { Storage } from '../storage/storage';
import { simKeyFiles } from './sim-keys';
import type { SimRandom } from './sim-random';
import { purgeProblems } from './sim-purge';
import { fullNodes, scopeProblems, simScope } from './sim-scopes';
import type { Simulation } from './simulation';

/** Codes no healthy run reports: each means a generator slip or an engine bug. */
const NEVER = ['OP_REFUSED', 'OP_INVALID', 'OP_MALFORMED', 'SKEW', 'BAD_SIGNATURE', 'UNSIGNED', 'PAGE_FAILED', 'STUCK', 'REWOUND', 'UNDELIVERABLE', 'KIND_CLASH'];

/** The streams peers compare: bootstrap streams (origin<host) differ between nodes by design (BOOT-10). */
export function mainVector(s: Storage): Record<string, number> {
  return Object.fromEntries(Object.entries(internals(s).log.vector).filter(([k]) => !k.includes('<')).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The sealed option's records: s<node>, each its writer's alone (GUAR-19). */
const isSealedId = (id: string): boolean => /^s\d+$/.test(id);

/** A node's records (canonical JSON of list(): data and meta, but sealed records) and main vector, as one text. */
export async function stateOf(s: Storage): Promise<string> {
  const records = (await s.list()).filter((r) => !isSealedId(r.id));
  return canonicalJson({ records, vector: mainVector(s) });
}

/** Every node holds the same records and vector (GUAR-1), and no sealed record but its own (GUAR-19). */
async function agree(sim: Simulation): Promise<{ state: string; problems: string[] }> {
  const states = await Promise.all(fullNodes(sim).map((n) => stateOf(n.storage)));
  const problems = states.flatMap((st, i) => (st === states[0] ? [] : [`node ${i} differs from node 0:\n  ${st.slice(0, 1500)}\n  ${states[0].slice(0, 1500)}`]));
  for (const n of sim.nodes) {
    const foreign = (await n.storage.list()).filter((r) => isSealedId(r.id) && r.id !== `s${n.index}`);
    if (foreign.length) problems.push(`node ${n.index} holds another node's sealed record ${foreign[0].id}`);
  }
  return { state: states[0], problems };
}

/** No acknowledged write is lost: every node's vector covers it and the op logged at its seq is it. */
function acked(sim: Simulation): string[] {
  const problems: string[] = [];
  for (const n of sim.nodes) {
    for (const w of n.acked) {
      if (w.sealed) {
        const op = sim.archive.sealedAt(w.origin, w.seq);
        if (!op || op.type !== w.type || op.id !== w.id) problems.push(`acknowledged sealed write lost: node ${w.node} sealed seq ${w.seq} ${w.type} ${w.id}`);
        continue;
      }
      const op = sim.archive.at(streamKey(w.origin, '*'), w.seq);
      if (!op || op.type !== w.type || op.id !== w.id) problems.push(`acknowledged write lost: node ${w.node} seq ${w.seq} ${w.type} ${w.id}`);
      for (const m of fullNodes(sim)) if ((internals(m.storage).log.vector[w.origin] ?? 0) < w.seq) problems.push(`node ${m.index} lacks node ${w.node}'s acknowledged seq ${w.seq}`);
    }
  }
  return problems;
}

/** Every op of the run once, streams interleaved at random (each in seq order), about 10% sent again. */
function shuffled(sim: Simulation, rng: SimRandom): Op[] {
  const streams = sim.archive.streams().map((ops) => ({ ops, at: 0 }));
  const out: Op[] = [];
  let left = streams.reduce((n, s) => n + s.ops.length, 0);
  while (left > 0) {
    let r = rng.int(left);
    const s = streams.find((x) => (r -= x.ops.length - x.at) < 0) as (typeof streams)[number];
    out.push(s.ops[s.at++]);
    left--;
    if (rng.chance(0.1)) out.push(out[rng.int(out.length)]);
  }
  return out;
}

/** Ops as a peer receives them: packed and unpacked again (a wire copy). */
const wireCopy = (ops: Op[]): Op[] => unpackOps(packOps(ops)).ops;

/**
 * The oracle: a fresh node fed the union of every op logged in the run, in a
 * seeded shuffle with duplicates, through applyPeerOps; its state is the one
 * every node must hold.
 */
async function oracle(sim: Simulation, rng: SimRandom): Promise<string> {
  const backend = createMemoryBackend({ files: await simKeyFiles(sim.seed, 'oracle') });
  const s = await open({ path: 'oracle', backend, now: () => sim.timers.now, sync: { signatures: false, maxSkew: Infinity, scope: sim.settings.scopes ? simScope : undefined } });
  try {
    const ops = wireCopy(shuffled(sim, rng));
    for (let i = 0; i < ops.length; ) {
      const n = rng.range(1, 64);
      await applyPeerOps(s, ops.slice(i, i + n), { via: { url: 'oracle', node: 'oracle' } });
      i += n;
    }
    return await stateOf(s);
  } finally {
    await s.close();
  }
}

/**
 * Re-delivering the whole history changes nothing: every op is a duplicate
 * but those of bootstrap streams (origin<host) that never reached this node
 * (they never travel back to their host, BOOT-10, so a star's clients lack
 * each other's); those join states the node holds already.
 */
async function redeliver(sim: Simulation): Promise<string[]> {
  const history = sim.archive.streams().flat();
  const problems: string[] = [];
  for (const n of fullNodes(sim)) {
    const s = n.storage;
    const before = await stateOf(s);
    const fresh = history.filter((op) => (internals(s).log.vector[opStreamKey(op)] ?? 0) < op.seq);
    const res = await applyPeerOps(s, wireCopy(history), { via: { url: 'replay', node: 'replay' }, signatures: false });
    const lost = fresh.filter((op) => op.from === undefined);
    // An op of a purged record is logged scrubbed and counted skipped (OPS-10): it is not expected to apply.
    const applies = fresh.filter((op) => op.type === 'purge' || !internals(s).committer.committed.get(op.id)?.purged);
    const skips = fresh.length - applies.length;
    if (lost.length) problems.push(`node ${n.index} lacks ${lost.length} op(s) outside bootstrap streams, e.g. ${lost[0].origin}#${lost[0].seq}`);
    if (res.applied !== applies.length || res.skipped !== skips || res.gaps || res.malformed) {
      problems.push(`node ${n.index}: re-delivery applied ${res.applied} (expected ${applies.length}), skipped ${res.skipped} (expected ${skips}), ${res.gaps} gaps`);
    }
    if ((await stateOf(s)) !== before) problems.push(`node ${n.index}: re-delivering the history changed its records or vector`);
  }
  return problems;
}

/**
 * The checks of a healed run (point 2 of the issue): every node holds the
 * same records and vector (GUAR-1), equal to an oracle fed the union of all
 * ops shuffled with duplicates; no acknowledged write is lost; no seq names
 * two ops (GUAR-6); re-delivering the history changes nothing (GUAR-2); no
 * node reported an error a healthy run never does. Returns the problems found.
 */
export async function checkConvergence(sim: Simulation): Promise<string[]> {
  const rng = sim.rng.fork();
  const { state, problems } = await agree(sim);
  problems.push(...acked(sim));
  problems.push(...sim.archive.reused.map((r) => `seq reused: ${r}`));
  for (const code of NEVER) if (sim.stats.errors[code]) problems.push(`${sim.stats.errors[code]} error(s) ${code}`);
  const expected = await oracle(sim, rng);
  if (expected !== state) problems.push(`the nodes differ from the oracle:\n  ${state.slice(0, 1500)}\n  ${expected.slice(0, 1500)}`);
  problems.push(...(await redeliver(sim)));
  // The scope-A reader reconciles first (scopeProblems): a purge of a record in B reaches it only that way.
  problems.push(...(await scopeProblems(sim)));
  if (sim.settings.purges) problems.push(...purgeProblems(sim));
  problems.push(...sim.holdProblems);
  problems.push(...sim.nodes.flatMap((n) => n.ownerProblems));
  return problems;
}

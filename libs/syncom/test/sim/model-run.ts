import fc from 'fast-check';
import { canonicalJson } from '../../src/op';
import { type Command, type Mode, NODES, World, type Write } from './model-world';

/** A node of the world. */
export const node = fc.integer({ min: 0, max: NODES - 1 });
const write: fc.Arbitrary<Write> = fc.record({
  kind: fc.constantFrom<Write['kind']>('set', 'update', 'update', 'delete', 'add', 'add', 'remove', 'inc', 'inc', 'purge', 'move'),
  id: fc.constantFrom<Write['id']>('r0', 'r1'),
  field: fc.constantFrom<Write['field']>('a', 'b'),
  value: fc.integer({ min: 0, max: 4 }),
});
/** Commands only some modes give meaning to (model-world.ts, Mode): the clock moved past retention; a node's sealed record written or purged. */
export const age: fc.WeightedArbitrary<Command> = { arbitrary: fc.constant({ t: 'age' as const }), weight: 2 };
export const seal: fc.WeightedArbitrary<Command> = { arbitrary: fc.record({ t: fc.constant('seal' as const), node, value: fc.integer({ min: 0, max: 4 }) }), weight: 4 };

/** One command of a run; `extra` adds commands a mode of the world gives meaning to. */
export const commandOf = (extra: fc.WeightedArbitrary<Command>[] = []): fc.Arbitrary<Command> => fc.oneof(
  { arbitrary: fc.record({ t: fc.constant('write' as const), node, w: write }), weight: 12 },
  { arbitrary: fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 3 }) }), weight: 3 },
  { arbitrary: fc.record({ t: fc.constant('cut' as const), node }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('lossy' as const), node, seed: fc.nat() }), weight: 1 },
  { arbitrary: fc.constant({ t: 'settle' as const }), weight: 3 },
  { arbitrary: fc.record({ t: fc.constant('reopen' as const), node }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('backup' as const), node }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('rewind' as const), node }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('join' as const), node, host: fc.constantFrom(0, 1) }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('reconcile' as const), node }), weight: 1 },
  ...extra,
);

/** A model test's bound: about a second a run on two busy cores, and a failing run waits out its synced() bounds while it shrinks. */
export const modelTimeout = (runs: number): number => 60_000 + runs * 5_000;

/**
 * A model test's fast-check parameters (FC_SEED overrides the seed): the
 * shrinking of a failure stops before the test's bound, so the failure is
 * reported with the smallest counterexample found so far, not as a timeout.
 */
export const modelParams = (seed: number, runs: number) => ({
  seed: Number(process.env.FC_SEED ?? seed), numRuns: runs, interruptAfterTimeLimit: modelTimeout(runs) - 15_000, markInterruptAsFailure: true,
});

/**
 * One run: the commands, then node 3 joined, every node upgraded (schema
 * mode) and the network healed; the problems the checks found (none is a pass).
 */
export async function runAll(commands: Command[], seed: number, scoped: boolean, mode: Mode = 'plain'): Promise<string[]> {
  const w = await World.create(seed, scoped, mode);
  try {
    for (const c of commands) await w.run(c);
    await w.join(3, 1);
    await w.upgradeAll();
    await w.quiesce();
    const problems = [...w.problems];
    for (const m of w.members) {
      const held = m.storage.sync.schemaInfo()?.held;
      if (held && (held.count || held.lost)) problems.push(`node ${m.index} still holds ops after its upgrade: ${JSON.stringify(held)}`);
    }
    const states = await Promise.all(w.members.map((_, i) => w.stateOf(i)));
    states.forEach((st, i) => st !== states[0] && problems.push(`live: node ${i} differs from node 0\n${st}\n${states[0]}`));
    for (const m of w.members) await m.storage.sync.forceSync();
    await w.quiesce();
    const healed = await Promise.all(w.members.map((_, i) => w.stateOf(i)));
    healed.forEach((st, i) => st !== healed[0] && problems.push(`reconciled: node ${i} differs from node 0\n${st}\n${healed[0]}`));
    if (healed[0] !== states[0]) problems.push(`reconciliation changed converged nodes\n${healed[0]}\n${states[0]}`);
    for (const m of w.members) problems.push(...(await w.sealedProblems(m.index)));
    await w.reopenAll();
    for (const m of w.members) problems.push(...(await w.sealedProblems(m.index)));
    const reopened = await Promise.all(w.members.map((_, i) => w.stateOf(i)));
    reopened.forEach((st, i) => st !== healed[i] && problems.push(`reopened: node ${i} differs from itself before\n${st}\n${healed[i]}`));
    const held = canonicalJson(JSON.parse(healed[0]).state);
    for (const order of [seed, seed + 1]) {
      const oracle = await w.oracle(order);
      if (oracle.live !== held) problems.push(`a fresh node fed every op (order ${order}) differs\n${oracle.live}\n${held}`);
      if (oracle.reopened !== oracle.live) problems.push(`reopened, the fresh node (order ${order}) differs\n${oracle.reopened}\n${oracle.live}`);
    }
    return problems;
  } finally {
    await w.close();
  }
}


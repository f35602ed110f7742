import fc from 'fast-check';
import { canonicalJson } from '../../src/op';
import { type Command, NODES, World, type Write } from './model-world';

const SEED = 20261207;
const RUNS = Number(process.env.FC_RUNS ?? 12);
const node = fc.integer({ min: 0, max: NODES - 1 });
const write: fc.Arbitrary<Write> = fc.record({
  kind: fc.constantFrom<Write['kind']>('set', 'update', 'update', 'delete', 'add', 'add', 'remove', 'inc', 'inc', 'purge', 'move'),
  id: fc.constantFrom<Write['id']>('r0', 'r1'),
  field: fc.constantFrom<Write['field']>('a', 'b'),
  value: fc.integer({ min: 0, max: 4 }),
});
const command: fc.Arbitrary<Command> = fc.oneof(
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
);

async function runAll(commands: Command[], seed: number, scoped: boolean): Promise<string[]> {
  const w = await World.create(seed, scoped);
  try {
    for (const c of commands) await w.run(c);
    await w.join(3, 1);
    await w.quiesce();
    const problems = [...w.problems];
    const states = await Promise.all(w.members.map((_, i) => w.stateOf(i)));
    states.forEach((st, i) => st !== states[0] && problems.push(`live: node ${i} differs from node 0\n${st}\n${states[0]}`));
    for (const m of w.members) await m.storage.sync.forceSync();
    await w.quiesce();
    const healed = await Promise.all(w.members.map((_, i) => w.stateOf(i)));
    healed.forEach((st, i) => st !== healed[0] && problems.push(`reconciled: node ${i} differs from node 0\n${st}\n${healed[0]}`));
    if (healed[0] !== states[0]) problems.push(`reconciliation changed converged nodes\n${healed[0]}\n${states[0]}`);
    await w.reopenAll();
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

/**
 * Four nodes (two hubs, two dialers; model-world.ts) under a generated run of
 * writes of every kind on shared ids (whole writes, updates, deletes, set adds
 * and removes, incs of a counter no one resets, purges, scope moves), cut and
 * lossy links, copied pages and calls, reopens, stopped backups restored
 * (REWOUND), a late node and second hosts that bootstrap mid-stream, and
 * reconciliations. Healed, every node must hold the same records, merge
 * states and main vector by live sync alone; reconciliation and a reopen of
 * every node change nothing; a fresh node fed every logged op, in two seeded
 * interleavings with copies, holds the same, also from its record files.
 * FC_RUNS, FC_SEED and MODEL_STEPS size it; a failure shrinks to a short
 * command list that replays (test/sim/found-by-model.spec.ts pins what it found).
 */
describe('four nodes on memory links under faults (model-based)', () => {
  it.each([['unscoped', false], ['scoped (records move between scopes A and B)', true]] as const)(
    'GUAR-1 GUAR-2: %s: after healing every node holds the same records, merge states and vector, which reconciliation, a reopen and a fresh node fed every op agree with',
    async (_name, scoped) => {
      await fc.assert(
        fc.asyncProperty(fc.array(command, { maxLength: Number(process.env.MODEL_STEPS ?? 30) }), fc.nat(), async (commands, seed) => {
          expect(await runAll(commands, seed, scoped)).toEqual([]);
        }),
        { seed: Number(process.env.FC_SEED ?? SEED), numRuns: RUNS },
      );
    },
    // About a second a run on two busy cores, and a failing run waits out its synced() bounds while it shrinks.
    60_000 + RUNS * 5_000,
  );
});

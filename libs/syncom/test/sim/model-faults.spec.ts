import fc from 'fast-check';
import { commandOf, modelParams, modelTimeout, runAll } from './model-run';

const SEED = 20261207;
const RUNS = Number(process.env.FC_RUNS ?? 12);
const command = commandOf();

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
        modelParams(SEED, RUNS),
      );
    },
    modelTimeout(RUNS),
  );
});

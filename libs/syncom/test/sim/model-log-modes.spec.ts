import fc from 'fast-check';
import { age, commandOf, modelParams, modelTimeout, runAll, seal } from './model-run';

const SEED = 20261209;
const RUNS = Number(process.env.FC_RUNS ?? 4);
const steps = () => Number(process.env.MODEL_STEPS ?? 30);

/**
 * The four-node model (model-faults.spec.ts, model-world.ts) in the modes
 * that change how nodes keep their logs and records, under the same faults
 * and checks:
 * - retention: every node seals a segment every two batches and keeps only
 *   those of the last half second of the world's clock (`retention.days`;
 *   `retention.ops` has a floor of 1000 no run reaches), which `age` moves
 *   past: feeds fall below their host's floor, dialers bootstrap again
 *   (incrementally where they hold records) and the oracle, fed every op
 *   ever logged, still agrees; scoped too, so tombstones and purges of
 *   records that moved between scopes outlive the ops that placed them;
 * - sealed: each node writes and purges a sealed record of its own (GUAR-19)
 *   beside the shared ones: no other node may hold or know of it, it reads
 *   as its last resolved write left it (or its backup, after a rewind), and
 *   the shared records converge around it;
 * - lines: nodes 1 and 3 write their logs as lines of an open file
 *   (`log.lines`), 0 and 2 a file a batch.
 * A few short runs each in CI; FC_RUNS, FC_SEED and MODEL_STEPS size them as
 * in model-modes.spec.ts.
 */
describe('four nodes on memory links under faults, with retention, sealed records and log lines (model-based)', () => {
  it.each([
    ['retention (segments dropped by age, feeds below the floor)', 'retention', false, [age]],
    ['retention, scoped (records move between scopes A and B)', 'retention', true, [age]],
    ['sealed (each node writes and purges a sealed record of its own)', 'sealed', false, [seal]],
    ['lines (nodes 1 and 3 log as lines of an open file)', 'lines', false, []],
  ] as const)(
    'GUAR-1 GUAR-2 GUAR-19: %s: after healing every node holds the same records, merge states and vector, which reconciliation, a reopen and a fresh node fed every op agree with',
    async (_name, mode, scoped, extra) => {
      await fc.assert(
        fc.asyncProperty(fc.array(commandOf([...extra]), { maxLength: steps(), size: 'max' }), fc.nat(), async (commands, seed) => {
          expect(await runAll(commands, seed, scoped, mode)).toEqual([]);
        }),
        modelParams(SEED, RUNS),
      );
    },
    modelTimeout(RUNS),
  );
});

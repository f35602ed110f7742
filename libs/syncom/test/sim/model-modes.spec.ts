import fc from 'fast-check';
import { commandOf, modelParams, modelTimeout, node, runAll } from './model-run';

const SEED = 20261208;
const RUNS = Number(process.env.FC_RUNS ?? 8);
const steps = () => Number(process.env.MODEL_STEPS ?? 30);

/**
 * The four-node model (model-faults.spec.ts, model-world.ts) in the modes
 * its default run does not drive, under the same faults and checks:
 * - signed: nodes 1 (a host) and 3 require signatures among nodes that sign,
 *   so node 3 and any second host's dialer bootstrap through a node that
 *   refuses an unsigned op, and a fresh node fed every op under 'require'
 *   must take every one (each a signed op, merge and advance included);
 * - schema: every node starts at schema version 1 and is upgraded to 2 mid-run
 *   (`upgrade`) while the others write; ops of version 2 wait held at a node
 *   still on 1 (GUAR-26) until its upgrade; records change type (`$type`)
 *   between one the schema validates and one it does not know. Every node is
 *   upgraded before the checks, and none may still hold an op.
 * FC_RUNS, FC_SEED and MODEL_STEPS size it, as model-faults.spec.ts; runs
 * draw their length from the whole range (`size: 'max'`), where fast-check
 * would start a few runs small (8 default runs held 36 commands in all).
 */
describe('four nodes on memory links under faults, in more modes (model-based)', () => {
  const upgrade = { arbitrary: fc.record({ t: fc.constant('upgrade' as const), node }), weight: 2 };
  it.each([
    ['signed (nodes 1 and 3 require signatures)', 'signed', []],
    ['schema (nodes upgraded from version 1 to 2 mid-run, records change type)', 'schema', [upgrade]],
  ] as const)(
    'GUAR-1 GUAR-2 GUAR-26: %s: after healing every node holds the same records, merge states and vector, which reconciliation, a reopen and a fresh node fed every op agree with',
    async (_name, mode, extra) => {
      await fc.assert(
        fc.asyncProperty(fc.array(commandOf([...extra]), { maxLength: steps(), size: 'max' }), fc.nat(), async (commands, seed) => {
          expect(await runAll(commands, seed, false, mode)).toEqual([]);
        }),
        modelParams(SEED, RUNS),
      );
    },
    modelTimeout(RUNS),
  );
});

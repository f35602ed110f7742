import fc from 'fast-check';
import { command, runAll } from './wire-run';

const SEED = 20261207;
// Its own count, not FC_RUNS: a run takes 1 to 5 s of sockets and apps, and test:hunt's 10,000 would take half a day.
const RUNS = Number(process.env.WIRE_RUNS ?? 4);
const LIMIT = 90_000 + RUNS * 15_000;

/**
 * Two hubs (hub 1 dialing hub 0 as a peer) and three socket.io dialers on
 * real sockets (wire-world.ts) under a generated run of writes of every kind
 * on shared ids, sockets dropped by a hub or by the dialer's side, hub apps
 * stopped and started again on their storage and port, dialers that stop
 * reading (the hub's send window fills), second hosts and a late node
 * bootstrapping mid-run, and reconciliations; in the second mode with
 * short ack and call timeouts, and stalls that await a link dropping a
 * connection whose answers never came. Healed, every node must hold
 * the same records, merge states and vector, and no node may report an
 * error a healthy network does not meet. WIRE_RUNS, FC_SEED and MODEL_STEPS
 * size it; a failure shrinks to a short command list, which
 * runAll(commands, short) replays in a test of its own.
 */
describe('two hubs and three dialers over socket.io under socket faults (model-based)', () => {
  it.each([['timeouts at their defaults', false], ['a 300 ms page ack timeout and a 500 ms call timeout (paused readers lose feeds and redial)', true]] as const)(
    'GUAR-1 GUAR-2: %s: after healing every node holds the same records, merge states and vector, which reconciliation does not change',
    async (_name, short) => {
      await fc.assert(
        fc.asyncProperty(fc.array(command, { maxLength: Number(process.env.MODEL_STEPS ?? 25) }), async (commands) => {
          expect(await runAll(commands, short)).toEqual([]);
        }),
        // A failing run waits out its bounds (10 s a synced(), 15 s the agreement) at every shrinking step: the
        // shrink stops in time for fast-check to print the smallest run found, before jest's timeout ends the test.
        { seed: Number(process.env.FC_SEED ?? SEED), numRuns: RUNS, interruptAfterTimeLimit: LIMIT - 30_000, markInterruptAsFailure: true },
      );
    },
    LIMIT,
  );
});

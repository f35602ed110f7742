import fc from 'fast-check';
import { type Command, DIALERS, HUBS, NODES, WireWorld, type Write } from './wire-world';

const node = fc.integer({ min: 0, max: NODES - 1 });
const dialer = fc.constantFrom(...DIALERS);
const write: fc.Arbitrary<Write> = fc.record({
  kind: fc.constantFrom<Write['kind']>('set', 'update', 'update', 'delete', 'add', 'add', 'remove', 'inc', 'inc', 'purge'),
  id: fc.constantFrom<Write['id']>('r0', 'r1'),
  field: fc.constantFrom<Write['field']>('a', 'b'),
  value: fc.integer({ min: 0, max: 4 }),
});

/** One command of a run. */
export const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ t: fc.constant('write' as const), node, w: write }), weight: 12 },
  { arbitrary: fc.record({ t: fc.constant('burst' as const), node, ws: fc.array(write, { minLength: 2, maxLength: 8 }) }), weight: 3 },
  { arbitrary: fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 3 }) }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('kick' as const), node: dialer }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('drop' as const), node: dialer }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('restart' as const), hub: fc.constantFrom(...HUBS) }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('pause' as const), node: dialer }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('stall' as const), node: dialer }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('join' as const), node: dialer, host: fc.constantFrom(...HUBS) }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('reconcile' as const), node: dialer }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('synced' as const), node: dialer }), weight: 2 },
);

/**
 * One run: the commands, then the network healed and every node awaited to
 * hold the same state; then a reconciliation by every dialer, which must
 * change nothing. The problems found (none is a pass).
 */
export async function runAll(commands: Command[], short = false): Promise<string[]> {
  const w = await WireWorld.create(short);
  try {
    for (const c of commands) await w.run(c);
    await w.heal();
    const healed = w.problems.length ? undefined : await w.agree('healed');
    if (healed !== undefined) {
      for (const d of DIALERS) await w.nodes[d].storage.sync.forceSync();
      const reconciled = await w.agree('reconciled');
      if (reconciled !== undefined && reconciled !== healed) w.problems.push(`reconciliation changed converged nodes\n${reconciled}\n${healed}`);
    }
    return w.problems.length ? [...w.problems, `codes emitted: ${JSON.stringify([...w.codes])}`] : [];
  } finally {
    await w.close();
  }
}

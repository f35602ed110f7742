import { internals } from '../../src/testing/internals';
import 'reflect-metadata';
import { applyPeerOps, type Storage } from '../../src';
import { FLAG_HELD } from '../../src/op';
import type { Op } from '../../src/op/types';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { reopen } from '../sync/scenario-helpers';

/**
 * A hold holds on the relayed path too (GUAR-26, OPS-17): a node without a
 * schema that joined a v2 record by bootstrap logs it as a merge op, which
 * carries no `v` of its own (merge ops never do) but the joined state's
 * meta.v. A v1 node (ahead 'hold') that receives that merge from it must hold
 * it as it holds the v2 write itself: not applied, not on a reopen with the
 * same v1 schema (the replay), and applied once the schema is v2. Found by
 * the simulation's holds option (mesh seed 2).
 */

const URL = 'memory://h';
const v1 = { version: 1, ahead: 'hold' as const, types: {} };
const v2 = { version: 2, types: {} };

/** A relay without a schema that bootstrapped from a v2 hub holding record x: its merge op of x. */
async function relayedMerge(): Promise<{ merge: Op; close: () => Promise<void> }> {
  const net = new Net();
  const h = await hub({}, { schema: v2, sync: { signatures: false } });
  net.units.set(URL, h.unit);
  await h.s.set('x', { title: 'from v2' });
  const relay = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, signatures: false } });
  await relay.sync.addNode({ url: URL, token: 't' });
  await until(async () => (await relay.get('x'))?.title === 'from v2', [relay]);
  const merge = internals(relay).log.read(0).map((e) => e.op).find((op) => op.type === 'merge' && op.id === 'x') as Op;
  return { merge, close: () => closeAll(relay, h.s) };
}

const held = (s: Storage) => internals(s).log.read(internals(s).log.floor).filter((e) => e.op.id === 'x' && e.flags & FLAG_HELD);

describe('ahead: hold holds a merge relayed from a node that joined newer state', () => {
  it('GUAR-26 OPS-17 BOOT-1: a merge op of a v2 state (no v of its own) is held (counted in schemaInfo().held), stays held on a v1 reopen, and lands with v2', async () => {
    const { merge, close } = await relayedMerge();
    expect(merge.v).toBeUndefined();
    expect((merge.data as { v?: number }).v).toBe(2);
    const s = await node({ schema: v1, sync: { signatures: false } });
    await applyPeerOps(s, [merge], { via: { url: 'relay', node: 'relay' } });
    await internals(s).committer.idle();
    expect(await s.has('x')).toBe(false);
    expect(held(s)).toHaveLength(1);
    expect(s.sync.schemaInfo()?.held.count).toBe(1);
    await s.close();
    const again = await reopen(s, { schema: v1, sync: { signatures: false } });
    expect(await again.has('x')).toBe(false);
    await again.close();
    const up = await reopen(again, { schema: v2, sync: { signatures: false } });
    expect(await up.get('x')).toMatchObject({ title: 'from v2' });
    await closeAll(up);
    await close();
  });
});

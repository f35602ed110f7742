import type { SyncomError } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, Net, node, until } from './helpers';

// A feed page holding an op this node refuses as SKEW (its writer's clock ahead of this
// node's by more than maxSkew, within the host's) moved the cursor past the op when no
// gap showed: the op never came again from that feed, and the writer's next op was a gap
// for good. The page did not land: the cursor stays, and the page comes again.
describe('GUAR-4, PROTO-14: the cursor does not move past an op refused as SKEW', () => {
  it('the op lands once this node\'s clock is within maxSkew of it, and the writer\'s stream goes on', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    const base = Date.now();
    let dClock = base;
    const w = await node({ now: () => base + 120_000, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const d = await node({ now: () => dClock, sync: { connect: net.connect, antiEntropyInterval: 0, maxSkew: 60_000 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    d.on('error', (e) => errors.push(e as SyncomError));
    await w.sync.addNode({ url: 'memory://h', token: 't' });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await d.sync.synced('memory://h', { timeout: 10_000 });
    const before = d.sync.peers()[0].cursor;
    const x = await w.insert({ n: 'x' });
    await until(() => errors.some((e) => e.code === 'SKEW'), [d]);
    expect(await d.has(x)).toBe(false);
    expect(d.sync.peers()[0].cursor).toBe(before);
    // This node's clock catches up: the page comes again and lands.
    dClock = base + 120_000;
    await until(async () => d.has(x), [d]);
    const y = await w.insert({ n: 'y' });
    await until(async () => d.has(y), [d]);
    expect(internals(d).log.vector[w.id]).toBe(2);
    await closeAll(w, d, h.s);
  });
});

import { closeAll, hub, Net, node, until } from './helpers';

// D bootstrapped from H1 (another node's early ops counted in its vector, not in its log), then
// dials H2, which lacks them: each of that node's ops D relays to H2 is a gap there, D is behind,
// and each recovery, pushing only such gaps, backs off further (to a minute). D's own writes,
// which H2 takes at once, waited for that backoff: now one goes with a recovery at once.
describe('HOST-16: a write of this node\'s is not held up by the backoff of recoveries a gap made fail', () => {
  it('reaches the second host while the recovery backoff stands at a minute', async () => {
    const net = new Net();
    const h1 = await hub();
    const h2 = await hub();
    net.units.set('memory://h1', h1.unit);
    net.units.set('memory://h2', h2.unit);
    const x = await node({ sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await x.sync.addNode({ url: 'memory://h1', token: 't' });
    for (let i = 0; i < 3; i++) await x.insert({ i });
    await x.sync.synced('memory://h1', { timeout: 10_000 });
    const d = await node({ sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: 'memory://h1', token: 't' });
    await d.sync.synced('memory://h1', { timeout: 10_000 });
    await d.sync.addNode({ url: 'memory://h2', token: 't' });
    await until(() => d.sync.peers().find((p) => p.url === 'memory://h2')?.subscribed === true, [d]);
    const gapped = new Promise<void>((resolve) => d.sync.on('sync', (e) => { if (e.url === 'memory://h2' && e.gaps > 0) resolve(); }));
    await x.insert({ more: 1 });
    await gapped;
    await new Promise((r) => setImmediate(r));
    expect(d.sync.peers().find((p) => p.url === 'memory://h2')?.behind).toBe(true);
    // As after a minute of such failed recoveries: the next one is due in a minute.
    (d.sync as unknown as { dialers: Map<string, { recovery: { backoff: number } }> }).dialers.get('memory://h2')!.recovery.backoff = 60_000;
    const w = await d.insert({ mine: 1 });
    await until(async () => h2.s.has(w), [d, h2.s]);
    await closeAll(x, d, h1.s, h2.s);
  });
});

import { createMemoryLink, type MemoryLink } from '../../src';
import { closeAll, hub, node, until } from '../sync/helpers';

/** Resolve once `check` holds, looking after each turn of the event loop (for states no event announces). */
async function turns(check: () => boolean, max = 1000): Promise<void> {
  for (let i = 0; i < max && !check(); i++) await new Promise((r) => setImmediate(r));
  if (!check()) throw new Error('condition not reached');
}

/** Engine bugs the simulation found, each pinned by a small scenario on the plain memory link. */
describe('regressions found by the simulation', () => {
  it('PROTO-12 PROTO-13: a dialer whose first hello fails (its link cut at start) subscribes once a later hello lands (sim seed 1, mesh)', async () => {
    const h = await hub();
    let link: MemoryLink | undefined;
    const connect = () => {
      // Connected, then cut before the dialer's first hello: as a partition does to a node booting.
      link = createMemoryLink(h.unit);
      link.cut();
      return link;
    };
    const d = await node({ sync: { connect } });
    await d.sync.addNode({ url: 'memory://hub', token: 't' });
    // The first hello fails at once (LINK_DOWN reports no event: look after each turn).
    await turns(() => d.sync.peers()[0]?.lastError?.code === 'LINK_DOWN');
    expect(d.sync.peers()[0].subscribed).toBe(false);
    (link as MemoryLink).restore();
    await until(() => d.sync.peers()[0]?.connected === true, [d], 5_000);
    await h.s.set('a', { title: 'from the hub' });
    await until(async () => (await d.get('a'))?.title === 'from the hub', [d], 5_000);
    expect(d.sync.peers()[0].subscribed).toBe(true);
    await closeAll(d, h.s);
  });
});

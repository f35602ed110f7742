import { internals } from '../../src/testing/internals';
import { FLAG_SEALED } from '../../src/op';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { allSealed, MARK } from './helpers';

describe('bootstrap next to a sealed record', () => {
  it('BOOT-8 GUAR-19: a page entry for an id the dialer keeps sealed is left as it is; the rest of the page lands', async () => {
    const net = new Net();
    const h = await hub({ pageSize: 3 });
    net.units.set('memory://h', h.unit);
    const ids = await Promise.all(Array.from({ length: 7 }, (_, i) => h.s.insert({ i })));
    await h.s.set('shared', { theirs: 1 });
    const d = await dialer(net);
    await d.set('shared', { mine: MARK }, { sealed: true });
    const boots: unknown[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e));
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => boots.length === 1, [d]);
    expect(await d.get('shared')).toEqual({ mine: MARK });
    expect(allSealed(d, 'shared')).toBe(true);
    for (const [i, id] of ids.entries()) expect(await d.get(id)).toEqual({ i });
    expect(internals(d).log.vector[h.s.id]).toBe(internals(h.s).log.vector[h.s.id]);
    // Nor does the sealed record travel the other way.
    expect(await h.s.get('shared')).toEqual({ theirs: 1 });
    await closeAll(d, h.s);
  });

  it('BOOT-8 GUAR-19: after the bootstrap the host\'s ops on that id are skipped on the feed; the sealed record wins here', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    await h.s.set('shared', { theirs: 1 });
    const d = await dialer(net);
    await d.set('shared', { mine: MARK }, { sealed: true });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && internals(d).log.vector[h.s.id] === 1, [d]);
    const skipped: number[] = [];
    d.on('apply', (e) => skipped.push(e.skipped));
    await h.s.update('shared', { theirs: 2 });
    const after = await h.s.insert({ after: true });
    await until(async () => d.has(after), [d]);
    expect(skipped.reduce((x, y) => x + y, 0)).toBe(1);
    expect(await d.get('shared')).toEqual({ mine: MARK });
    expect(internals(d).log.read(0).filter((e) => e.op.id === 'shared' && !(e.flags & FLAG_SEALED)).map((e) => e.op.type)).toEqual(['set']);
    expect(internals(d).log.vector[h.s.id]).toBe(3);
    await closeAll(d, h.s);
  });
});

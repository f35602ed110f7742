import { closeAll, dialer, hub, Net, until } from './helpers';

const hello = (node: string, extra: Record<string, unknown> = {}) => ({ node, vector: {}, epoch: 'e1', schema: null, scopes: ['*'], token: 't', ...extra });

describe('WIRE versions and capabilities', () => {
  it('WIRE: the host answers the highest shared version and its capabilities; a peer sending no versions speaks 1', async () => {
    const h = await hub({ wireVersions: [1, 2, 5] });
    const ctx = {};
    expect(await h.unit.call('hello', hello('a', { versions: [1, 2, 3] }), ctx)).toMatchObject({ version: 2, versions: [1, 2, 5], caps: ['reconcile/1'] });
    expect(await h.unit.call('hello', hello('b'), {})).toMatchObject({ version: 1 });
    await expect(h.unit.call('hello', hello('c', { versions: 'x' }), {})).rejects.toMatchObject({ status: 400, code: 'BAD_HELLO' });
    await closeAll(h.s);
  });

  it('WIRE: a host refuses a hello with no shared version (426 INCOMPATIBLE), emits incompatible, and opens no session', async () => {
    const h = await hub();
    const seen: unknown[] = [];
    h.s.sync.on('incompatible', (e) => seen.push(e));
    const ctx = {};
    await expect(h.unit.call('hello', hello('old', { versions: [7] }), ctx)).rejects.toMatchObject({ status: 426, code: 'INCOMPATIBLE', versions: [1] });
    expect(seen).toEqual([{ peer: 'old', versions: [7] }]);
    await expect(h.unit.call('push', { ops: [] }, ctx)).rejects.toMatchObject({ status: 428 });
    await closeAll(h.s);
  });

  it('WIRE: a dialer pinned to a version the host lacks: both sides emit incompatible, nothing else crosses, no retry until enabled again', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    await h.s.insert({ x: 1 });
    const d = await dialer(net, { sync: { connect: net.connect, wireVersions: [2] } });
    const atHost: unknown[] = [];
    const atDialer: unknown[] = [];
    let wake = () => undefined as void;
    const next = () => new Promise<void>((r) => (wake = r));
    h.s.sync.on('incompatible', (e) => atHost.push(e));
    d.sync.on('incompatible', (e) => { atDialer.push(e); wake(); });
    let seen = next();
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await seen;
    expect(atHost).toEqual([{ peer: d.id, versions: [2] }]);
    expect(atDialer).toEqual([{ peer: 'memory://h', versions: [1] }]);
    await d.insert({ y: 1 });
    await net.links[0].settle();
    expect(net.links[0].stats().calls).toBe(1);
    expect(net.links[0].connected).toBe(false);
    expect(d.sync.peers()[0]).toMatchObject({ connected: false, subscribed: false, incompatible: true, lastError: { code: 'INCOMPATIBLE' } });
    expect(await h.s.list()).toHaveLength(1);
    seen = next();
    await d.sync.enableNode('memory://h', true);
    await seen;
    expect(net.links).toHaveLength(2);
    await closeAll(d, h.s);
  });

  it('WIRE: two nodes that share a version sync as before', async () => {
    const net = new Net();
    const h = await hub({ wireVersions: [1, 2] });
    net.units.set('memory://h', h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, wireVersions: [2, 3] } });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    const id = await d.insert({ x: 1 });
    await until(async () => h.s.has(id), [h.s, d]);
    await closeAll(d, h.s);
  });
});

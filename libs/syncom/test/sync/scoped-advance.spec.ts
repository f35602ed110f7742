import { internals } from '../../src/testing/internals';
import { spyUnit, type Wire } from '../sealed/helpers';
import { closeAll, dialer, hub, Net, until } from './helpers';

const byField = (_id: string, data: Record<string, unknown>) => (typeof data.s === 'string' ? data.s : '*');

/**
 * A node that bootstraps from another logs advance ops that adopt the
 * vector its snapshot served. One advance of the whole vector was a global
 * op: a feed served it to peers of every scope, and a peer of one scope read
 * in it the other scopes' names and how much each origin wrote there.
 */
describe('the advance ops of a bootstrap', () => {
  it('BOOT-11, OPS-13, SCOPE-20: are one per scope of the joined vector; a peer of one scope is granted its streams and reads no other scope', async () => {
    const net = new Net();
    const far = await hub({}, { sync: { scope: byField } });
    for (const s of ['A', 'B-tenant-secret']) for (let i = 0; i < 3; i++) await far.s.insert({ i, s });
    await far.s.insert({ global: true });
    net.units.set('memory://far', far.unit);
    const h = await dialer(net, { sync: { connect: net.connect, scope: byField, antiEntropyInterval: 0 } });
    const unit = h.sync.unit({ access: 'public', authorize: (_c, x) => x.token === 't' });
    const wire: Wire = { calls: [], answers: [] };
    net.units.set('memory://h', spyUnit(unit, wire));
    // The peer of scope A is on h's feed before h bootstraps: the bootstrap's ops reach it as h's own.
    const p = await dialer(net, { sync: { connect: net.connect, scope: byField, antiEntropyInterval: 0 } });
    await p.sync.addNode({ url: 'memory://h', token: 't', scopes: ['A'] });
    await until(() => p.sync.peers()[0]?.subscribed === true, [p, h]);
    await h.sync.addNode({ url: 'memory://far', token: 't' });
    await until(async () => (await p.list()).length === 4, [p, h, far.s]);
    const advances = internals(h).log.read(0).filter((e) => e.op.type === 'advance');
    expect(advances.map((e) => e.op.scope ?? '*').sort()).toEqual(['*', 'A', 'B-tenant-secret']);
    for (const e of advances) {
      for (const k of Object.keys(e.op.vector ?? {})) expect(k.includes('@') ? k.slice(k.indexOf('@') + 1) : '*').toBe(e.op.scope ?? '*');
    }
    // The peer holds far's streams of A as granted (it takes far's later ops of A as next, no gap), and nothing of B.
    expect(internals(p).log.vector[`${far.s.id}@A`]).toBe(3);
    expect(Object.keys(internals(p).log.vector).some((k) => k.includes('B-tenant-secret'))).toBe(false);
    expect(wire.answers.join('\n')).not.toContain('B-tenant-secret');
    await far.s.insert({ i: 9, s: 'A' });
    await until(async () => (await p.list()).length === 5, [p, h, far.s]);
    expect(p.sync.peers()[0]).toMatchObject({ behind: false, stuck: false });
    await closeAll(p, h, far.s);
  });
});

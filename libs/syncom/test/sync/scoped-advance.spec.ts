import { applyPeerOps, type Op } from '../../src';
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

  it('BOOT-11, OPS-13: a vector of 1,000 scopes is adopted in place, advance by advance (no copy of the vector per advance)', async () => {
    const net = new Net();
    const far = await hub({}, { sync: { scope: byField, signatures: false } });
    const ops = Array.from({ length: 1000 }, (_, i) => ({ origin: `o${i}`, seq: 1, ts: 1_000 + i, type: 'write', id: `r${i}`, scope: `s${i}`, data: { s: `s${i}` } }) as Op);
    expect((await applyPeerOps(far.s, ops, { via: { url: 'memory://x', node: 'x' } })).applied).toBe(1000);
    net.units.set('memory://far', far.unit);
    const h = await dialer(net, { sync: { connect: net.connect, scope: byField, signatures: false, antiEntropyInterval: 0 } });
    const parts = internals(h);
    const [logged, pending, committed] = [parts.log.vector, parts.committer.pvec, parts.committer.cvec];
    await h.sync.addNode({ url: 'memory://far', token: 't' });
    await until(async () => (await h.list()).length === 1000 && parts.committer.cvec[`o999@s999`] === 1, [h, far.s]);
    expect(parts.log.read(0).filter((e) => e.op.type === 'advance')).toHaveLength(1001);
    // Each advance raised the one vector: a copy per advance cost scopes times origins (26 s of CPU for 5,000 scopes).
    expect(parts.log.vector).toBe(logged);
    expect(parts.committer.pvec).toBe(pending);
    expect(parts.committer.cvec).toBe(committed);
    expect(parts.log.vector).toMatchObject(internals(far.s).log.vector);
    await closeAll(h, far.s);
  });
});

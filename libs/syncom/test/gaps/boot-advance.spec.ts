import { internals } from '../../src/testing/internals';
import { streamKey } from '../../src';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { craft, greet, push } from '../sync/scenario-helpers';

describe('an advance that is not the feed host\'s own grants nothing', () => {
  it('BOOT-12: an advance pushed by a peer is logged and relayed, but moves no vector at the host nor at a node reading the host\'s feed', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    // C reads H's feed from the start: what H logs reaches C as a relay from H's log.
    const c = await dialer(net);
    let booted = 0;
    c.sync.on('bootstrap', () => booted++);
    await c.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => booted === 1, [c]);

    const p = await node();
    const x = await node();
    const claimed = { [x.id]: 5, [`${x.id}@Doc`]: 2, [c.id]: 9 };
    const advance = craft(p, { type: 'advance', id: x.id, from: x.id, vector: claimed }, '*', 1);
    const key = streamKey(p.id, '*', x.id);
    const ctx = await greet(h.unit, p);
    await expect(push(h.unit, ctx, [advance])).resolves.toMatchObject({ malformed: 0, forged: 0, vector: { [key]: 1 } });

    // The host logged it and keeps it in its own stream, but adopted none of its vector.
    const atHost = internals(h.s).log.read(0).filter((e) => e.op.type === 'advance' && e.op.origin === p.id);
    expect(atHost.map((e) => e.op.vector)).toEqual([claimed]);
    expect(internals(h.s).log.vector[key]).toBe(1);
    for (const k of Object.keys(claimed)) expect(internals(h.s).log.vector[k]).toBeUndefined();

    // Relayed on to C, which logs it and grants nothing either (its own stream included).
    await until(() => internals(c).log.vector[key] === 1, [c]);
    const atC = internals(c).log.read(0).filter((e) => e.op.type === 'advance' && e.op.origin === p.id);
    expect(atC.map((e) => e.op.vector)).toEqual([claimed]);
    for (const k of Object.keys(claimed)) expect(internals(c).log.vector[k]).toBeUndefined();
    await closeAll(c, h.s, p, x);
  });

  it('BOOT-12 BOOT-11: a bootstrapped node pushes its advance on to another host, which logs it without adopting the vector it names', async () => {
    const net = new Net();
    const a = await hub();
    const h = await hub();
    net.units.set('memory://a', a.unit);
    net.units.set('memory://h', h.unit);
    for (let i = 0; i < 3; i++) await a.s.insert({ i });
    const b = await dialer(net);
    let booted = 0;
    b.sync.on('bootstrap', () => booted++);
    await b.sync.addNode({ url: 'memory://a', token: 't' });
    await until(() => booted === 1, [b]);
    // At B, the advance read from A's own feed granted A's vector (BOOT-11).
    expect(internals(b).log.vector[a.s.id]).toBe(3);
    const own = internals(b).log.read(0).find((e) => e.op.type === 'advance');
    expect(own?.op).toMatchObject({ origin: b.id, from: a.s.id, vector: { [a.s.id]: 3 } });

    await b.sync.addNode({ url: 'memory://h', token: 't' });
    const key = streamKey(b.id, '*', a.s.id);
    // B's merges and its advance share one stream (<b><a>): the advance is its last op.
    await until(() => internals(h.s).log.vector[key] === own!.op.seq, [b, h.s]);
    const atHost = internals(h.s).log.read(0).find((e) => e.op.type === 'advance');
    expect(atHost?.op).toMatchObject({ origin: b.id, from: a.s.id, vector: { [a.s.id]: 3 } });
    expect(internals(h.s).log.vector[a.s.id]).toBeUndefined();
    // The records came across as B's merges all the same.
    expect((await h.s.list()).length).toBe(3);
    await closeAll(b, a.s, h.s);
  });
});

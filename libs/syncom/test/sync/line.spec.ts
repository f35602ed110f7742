import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, records, until } from './helpers';

describe('a line A - B - C', () => {
  it('PROTO-1 PROTO-8 PROTO-9 PROTO-10: writes at A reach C through B, hop by hop, and do not loop', async () => {
    const net = new Net();
    const b = await hub();
    net.units.set('memory://b', b.unit);
    const a = await dialer(net);
    const c = await dialer(net);
    await a.sync.addNode({ url: 'memory://b', token: 't' });
    await c.sync.addNode({ url: 'memory://b', token: 't' });
    const id = await a.insert({ from: 'a' });
    await until(async () => c.has(id), [a, b.s, c]);
    const cid = await c.insert({ from: 'c' });
    await until(async () => a.has(cid), [a, b.s, c]);
    expect(await records(a)).toEqual(await records(c));
    const applied = { a: 0, c: 0 };
    a.on('change', (op) => op.origin === a.id && applied.a++);
    c.on('change', (op) => op.origin === c.id && applied.c++);
    await a.sync.sync();
    await c.sync.sync();
    expect(applied).toEqual({ a: 0, c: 0 });
    await closeAll(a, b.s, c);
  });

  it('BOOT-9 BOOT-10 BOOT-11 SIG-22: C bootstrapping from B gets what B joined from A; B never pushes the joined ops back to A', async () => {
    const net = new Net();
    const a = await hub();
    net.units.set('memory://a', a.unit);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await a.s.insert({ i }));
    const b = await dialer(net);
    const bUnit = b.sync.unit({ access: 'public' });
    net.units.set('memory://b', bUnit);
    const boots: unknown[] = [];
    b.sync.on('bootstrap', (e) => boots.push(e));
    await b.sync.addNode({ url: 'memory://a', token: 't' });
    await until(() => boots.length === 1, [b]);
    expect(boots).toEqual([{ url: 'memory://a', records: 20 }]);
    // The merges are signed in the background, after their pages are readable.
    await b.replica.signed();
    const merges = internals(b).log.read(0).filter((e) => e.op.type === 'merge');
    expect(merges).toHaveLength(20);
    expect(merges.every((e) => e.op.origin === b.id && e.op.from === a.s.id && typeof e.op.sig === 'string')).toBe(true);
    expect(internals(a.s).log.read(0).filter((e) => e.op.origin === b.id)).toEqual([]);
    const c = await dialer(net);
    await c.sync.addNode({ url: 'memory://b' });
    await until(async () => (await c.list()).length === 20, [c]);
    expect(await records(c)).toEqual(await records(a.s));
    await a.s.update(ids[0], { i: 100 });
    await until(async () => (await c.get(ids[0]))?.i === 100, [a.s, b, c]);
    await closeAll(a.s, b, c);
  });
});

import { internals } from '../../src/testing/internals';
import { stateOf } from '../../src/testing';
import { churnPastFloor, closeAll, dialer, hub, Net, until } from './helpers';
import { reusedSeqs } from './scenario-helpers';

const URL = 'memory://h';

describe('a dialer cut off past the host\'s floor, writing meanwhile', () => {
  it('LOG-13 LOG-15 LOG-18 BOOT-1 GUAR-1 GUAR-6 OPS-10 KIND-4 KIND-7: its offline writes race field writes, incs, a set re-add and a purge of the same records on another dialer; after the hub\'s retention passed its cursor it catches up, and all three nodes hold the same records and vector', async () => {
    const net = new Net();
    const h = await hub({ pageSize: 500 }, { sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    net.units.set(URL, h.unit);
    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => h.s.insert({ i })));
    await h.s.set('r1', { title: 'hub' });
    await h.s.set('r2', { title: 'hub' });
    await h.s.set('r3', { title: 'hub' });
    await h.s.set('c', {});
    await h.s.inc('c', 'n', 1);
    await h.s.add('r1', 'tags', ['a', 'b']);
    const a = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const b = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const boots: unknown[] = [];
    b.sync.on('bootstrap', (e) => boots.push(e));
    await a.sync.addNode({ url: URL, token: 't' });
    await b.sync.addNode({ url: URL, token: 't' });
    const all = [h.s, a, b];
    const same = async () => new Set(await Promise.all(all.map(stateOf))).size === 1;
    await until(same, all);
    const booted = boots.length;

    net.links[1].cut();
    // Offline on b: every kind of op on the records a and the hub change meanwhile.
    await b.update('r1', { title: 'b' });
    await b.inc('c', 'n', 5);
    await b.remove('r1', 'tags', ['a']);
    await b.add('r1', 'tags', ['bb']);
    await b.delete('r2');
    await b.update('r3', { z: 1 });
    const bSeq = internals(b).log.vector[b.id];
    // Online on a: the same records, and a purge b's update of r3 must not outlive.
    await a.update('r1', { title: 'a' });
    await a.inc('c', 'n', 2);
    await a.add('r1', 'tags', ['a']);
    await a.purge('r3');
    await until(async () => (await h.s.get('r1'))?.title === 'a' && !(await h.s.has('r3')), [h.s]);
    expect(await churnPastFloor(h.s, ids)).toBeGreaterThan(0);

    net.links[1].restore();
    await until(async () => boots.length > booted && (internals(h.s).log.vector[b.id] ?? 0) >= bSeq && (await same()), all);
    for (const s of all) {
      expect(await s.get('c')).toEqual({ n: 8 });
      // a's add of 'a' is not among the adds b's remove saw: it survives (KIND-7).
      expect((await s.get('r1'))?.tags).toEqual(['a', 'b', 'bb']);
      expect(await s.has('r2')).toBe(false);
      expect(await s.has('r3')).toBe(false);
      expect(reusedSeqs(s)).toEqual([]);
    }
    await closeAll(a, b, h.s);
  }, 60_000);
});

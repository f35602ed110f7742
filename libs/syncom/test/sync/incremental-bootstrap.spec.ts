import { internals } from '../../src/testing/internals';
import { churnPastFloor, closeAll, dialer, hub, Net, records, until } from './helpers';

const URL = 'memory://h';
const bytes = (s: { bytesIn: number; bytesOut: number }) => s.bytesIn + s.bytesOut;

describe('RECON incremental bootstrap', () => {
  it('RECON BOOT-1: a dialer with data whose cursor fell below the floor reconciles instead of paging the snapshot: fewer bytes, the same records', async () => {
    const net = new Net();
    const h = await hub({ pageSize: 500 }, { sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    net.units.set(URL, h.unit);
    const ids = await Promise.all(Array.from({ length: 2000 }, (_, i) => h.s.insert({ i, text: `record number ${i} with some body` })));
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const boots: { records: number }[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1 && d.sync.peers()[0]?.subscribed === true, [d]);
    const link = net.links[0];
    link.cut();
    const own = await d.insert({ mine: 'written offline' });
    // Retention drops segments as the log grows: the hub's floor passes the dialer's cursor.
    expect(await churnPastFloor(h.s, ids)).toBeGreaterThan(0);
    const before = link.stats();
    link.restore();
    await until(() => boots.length === 2, [d, h.s]);
    await until(async () => h.s.has(own), [d, h.s]);
    const incremental = bytes(link.stats()) - bytes(before);
    expect(boots[1].records).toBe(60);
    expect(await records(d)).toEqual(await records(h.s));

    const fresh = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const freshBoots: unknown[] = [];
    fresh.sync.on('bootstrap', (e) => freshBoots.push(e));
    await fresh.sync.addNode({ url: URL, token: 't' });
    await until(() => freshBoots.length === 1, [fresh]);
    const full = bytes(net.links[1].stats());
    expect(incremental * 4).toBeLessThan(full);
    // The feed resumes from the reconciliation's event id: a later write arrives as an op.
    const later = await h.s.insert({ later: 1 });
    await until(async () => d.has(later), [d]);
    await closeAll(fresh, d, h.s);
  });

  it('RECON BOOT-1: a dialer holding nothing still pages the snapshot', async () => {
    const net = new Net();
    const h = await hub({}, { sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    net.units.set(URL, h.unit);
    for (let r = 0; r < 60; r++) await Promise.all(Array.from({ length: 25 }, (_, i) => h.s.insert({ r, i })));
    await internals(h.s).committer.idle();
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const boots: { records: number }[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1, [d]);
    expect(boots[0].records).toBe(1500);
    expect(net.links[0].stats().calls).toBeGreaterThan(1);
    await closeAll(d, h.s);
  });
});

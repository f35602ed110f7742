import { closeAll, dialer, hostAndDialer, hub, Net, node } from './helpers';
import { greet } from './scenario-helpers';
import type { HostUnit } from '../../src/link';

const URL = 'memory://h';

describe('a bootstrap the host refuses for now', () => {
  it('BOOT-1 HOST-17: a first page refused 503 SNAPSHOT_BUSY (every paging of the host in use) is asked again, backed off, until it goes through', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ maxPagings: 1, pageSize: 1, authorize: () => true }, { now: () => clock.t });
    for (let i = 0; i < 3; i++) await h.s.insert({ i });
    // Another peer holds the host's one paging, in use.
    const other = await node();
    await h.unit.call('snapshot', {}, await greet(h.unit, other, ['*'], { token: 'other' }));
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const busy = new Promise<void>((resolve) => d.sync.on('error', (e) => e.code === 'SNAPSHOT_BUSY' && resolve()));
    await d.sync.addNode({ url: URL, token: 't' });
    await busy;
    // The other paging goes idle: the dialer's next try takes its place.
    clock.t += 31_000;
    await new Promise<void>((resolve) => d.sync.on('bootstrap', () => resolve()));
    expect(await d.list()).toHaveLength(3);
    await closeAll(d, h.s, other);
  });

  it('BOOT-1 HOST-17: a host that answers every subscription with a bootstrap is asked again backed off, not at once (it had looped 125,500 times in 13 s, an advance op logged each)', async () => {
    const h = await hub();
    for (let i = 0; i < 5; i++) await h.s.insert({ i });
    let subscribes = 0;
    const hostile: HostUnit = {
      access: h.unit.access,
      call: (m, a, c) => h.unit.call(m, a, c),
      subscribe: (_m, _a, _c, o) => { subscribes++; queueMicrotask(() => void o.onData({ bootstrap: true, reason: 'floor' }, undefined)); return { unsubscribe() {} }; },
      stream: (id, c) => h.unit.stream(id, c),
      disconnect: (c) => h.unit.disconnect(c),
    };
    const net = new Net();
    net.units.set(URL, hostile);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    let bootstraps = 0;
    const second = new Promise<void>((resolve) => d.sync.on('bootstrap', () => ++bootstraps === 2 && resolve()));
    await d.sync.addNode({ url: URL, token: 't' });
    await second;
    // The first bootstrap subscribed again at once (a host may well ask one); the second waits its backoff.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(subscribes).toBe(2);
    await closeAll(d, h.s);
  });

  it('BOOT-1 BOOT-6 LOG-13: a dialer away past the host\'s retention twice, with no changes page between (a quiet host), subscribes at once after each bootstrap: a hello between them is a new session, not a loop', async () => {
    const host = { sync: { signatures: false as const, retention: { ops: 100 }, log: { rollAfter: 5 } } };
    const { net, h, d } = await hostAndDialer(URL, { hub: host });
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => h.s.insert({ i })));
    const bootstrapped = () => new Promise<void>((resolve) => { const off = d.sync.on('bootstrap', () => { off(); resolve(); }); });
    const first = bootstrapped();
    await d.sync.addNode({ url: URL, token: 't' });
    await first;
    for (let away = 0; away < 2; away++) {
      const link = net.links[net.links.length - 1];
      link.cut();
      // The host moves on past its retention while the dialer is away: its cursor can no longer be resumed.
      const cursor = d.sync.peers()[0].cursor as string;
      for (let r = 0; h.s.replica.cursor(cursor).ok; r++) {
        await Promise.all(ids.map((id) => h.s.update(id, { n: away * 100 + r })));
        await h.s.replica.idle();
      }
      const again = bootstrapped();
      link.restore();
      await again;
      // At once, as the event fires: not a backed-off second later.
      expect(d.sync.peers()[0]).toMatchObject({ subscribed: true });
    }
    expect(await d.get(ids[0])).toEqual(await h.s.get(ids[0]));
    await closeAll(d, h.s);
  });
});

describe('a beforeBootstrap hook that throws', () => {
  it('OPT-14 BOOT-1: is reported and the bootstrap asked again backed off, not left with the feed closed until the next reconnect', async () => {
    const h = await hub();
    for (let i = 0; i < 3; i++) await h.s.insert({ i });
    const net = new Net();
    net.units.set(URL, h.unit);
    let asked = 0;
    const beforeBootstrap = () => {
      if (++asked === 1) throw new Error('policy store down');
      return true;
    };
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeBootstrap } } });
    const reported = new Promise<Error>((resolve) => d.sync.on('error', (e) => resolve(e)));
    const booted = new Promise<number>((resolve) => d.sync.on('bootstrap', (e) => resolve(e.records)));
    await d.sync.addNode({ url: URL, token: 't' });
    expect(await reported).toMatchObject({ code: 'SYNC_FAILED', message: expect.stringMatching(/policy store down/) });
    expect(await booted).toBe(3);
    expect(asked).toBe(2);
    expect(await d.list()).toHaveLength(3);
    await closeAll(d, h.s);
  });
});

import { SyncomError } from '../../src/errors';
import type { HostUnit } from '../../src/link';
import { churnPastFloor, closeAll, dialer, hub, Net, until } from './helpers';

const URL = 'memory://h';

/** A hub whose unit answers `reconcile` through `reconcile` (the rest as it is), and a dialer greeted with it. */
async function pair(reconcile: (call: () => Promise<unknown>) => Promise<unknown>, interval = 0) {
  const net = new Net();
  const h = await hub();
  const unit = Object.create(h.unit) as HostUnit;
  unit.call = (proc: string, args: unknown, ctx: object) => {
    const call = () => h.unit.call(proc, args as never, ctx as never);
    return proc === 'reconcile' ? reconcile(call) as never : call();
  };
  net.units.set(URL, unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: interval } });
  const errors: string[] = [];
  d.sync.on('error', (e) => errors.push(e.code));
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
  return { h, d, errors };
}

describe('RECON anti-entropy failures', () => {
  it('RECON LIFE-21: timer runs that come while a run waits on its host do not queue up behind it', async () => {
    const spy = jest.spyOn(global, 'setInterval');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const first = new Promise<void>((r) => (arrived = r));
    let calls = 0;
    const { h, d } = await pair(async (call) => {
      calls++;
      arrived();
      await gate;
      return call();
    }, 987_654);
    const tick = spy.mock.calls.find((c) => c[1] === 987_654)?.[0] as () => void;
    spy.mockRestore();
    expect(tick).toBeDefined();
    tick();
    await first;
    // The host hangs (the engine sets no call timeouts, LIFE-23): the interval passes again and again.
    for (let i = 0; i < 10; i++) tick();
    release();
    // A recovery's turn comes after every turn queued before it.
    await d.sync.sync();
    // The run that waited, and at most one more that reads the store as it is when it starts: not one per tick.
    expect(calls).toBeLessThanOrEqual(2);
    await closeAll(d, h.s);
  });

  it('RECON: a reconciliation the host fails (500) is reported and leaves the peer neither behind nor unsynced', async () => {
    const { h, d, errors } = await pair(() => Promise.reject(new SyncomError('INTERNAL', 'the host failed', { status: 500 })));
    await d.insert({ x: 1 });
    await d.sync.synced(URL, { timeout: 5000 });
    await d.sync.forceSync();
    expect(errors).toContain('INTERNAL');
    // Nothing of this node is missing at the host: a failed reconciliation says nothing of the pushes.
    expect(d.sync.peers()[0].behind).toBe(false);
    await d.sync.synced(URL, { timeout: 2000 });
    await closeAll(d, h.s);
  });
});

describe('RECON incremental bootstrap failures', () => {
  it('RECON BOOT-1: a host whose reconcile answer is malformed: the dialer falls back to the snapshot and reports RECONCILE_MALFORMED', async () => {
    const net = new Net();
    const h = await hub({ pageSize: 500 }, { sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    let junk = false;
    let reconciles = 0;
    const unit = Object.create(h.unit) as HostUnit;
    unit.call = (proc: string, args: unknown, ctx: object) => {
      if (proc === 'reconcile' && junk) return (reconciles++, Promise.resolve({ msg: { v: 1, ranges: 'junk' } })) as never;
      return h.unit.call(proc, args as never, ctx as never);
    };
    net.units.set(URL, unit);
    const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => h.s.insert({ i })));
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const boots: { records: number }[] = [];
    const errors: string[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e));
    d.sync.on('error', (e) => errors.push(e.code));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1 && d.sync.peers()[0]?.subscribed === true, [d]);
    const link = net.links[0];
    link.cut();
    // Retention drops segments as the log grows: the hub's floor passes the dialer's cursor.
    expect(await churnPastFloor(h.s, ids)).toBeGreaterThan(0);
    junk = true;
    link.restore();
    await until(() => boots.length === 2, [d, h.s]);
    expect(reconciles).toBeGreaterThan(0);
    // The snapshot repaired it, and the host that answered so is named: it was swallowed, nothing told.
    expect(errors).toContain('RECONCILE_MALFORMED');
    await closeAll(d, h.s);
  });
});

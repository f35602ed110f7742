import { internals } from '../../src/testing/internals';
import type { Meter, MeterProvider } from '@opentelemetry/api';
import { ATTRS, METRICS } from '../../src/telemetry';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { gate, record } from '../sync/scenario-helpers';
import { Otel } from './otel';

const URL = 'memory://hub';

/** A meter provider whose meters report each removeBatchObservableCallback into `removed`. */
function watched(inner: MeterProvider, removed: unknown[]): MeterProvider {
  return {
    getMeter: (name, version, options) => {
      const meter = inner.getMeter(name, version, options);
      return new Proxy(meter, {
        get: (target, key) => {
          if (key === 'removeBatchObservableCallback') {
            return (...args: Parameters<Meter['removeBatchObservableCallback']>) => { removed.push(args[0]); target.removeBatchObservableCallback(...args); };
          }
          const v = Reflect.get(target, key) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    },
  };
}
const DAY = 86_400_000;

describe('telemetry: gauges, read at collection', () => {
  let otel: Otel;
  beforeEach(() => { otel = new Otel(); });
  afterEach(() => otel.shutdown());

  it('syncom.peers.connected by role, syncom.log.ops, and syncom.sync.lag at the host: the ops past a feed\'s cursor', async () => {
    const net = new Net();
    const h = await hub({}, { telemetry: otel.telemetry });
    net.units.set(URL, h.unit);
    // The dialer holds each changes page in beforeApply until the test lets it go: the host's feed cannot move past it.
    const pages: { reached: ReturnType<typeof gate>; held: ReturnType<typeof gate> }[] = [0, 1].map(() => ({ reached: gate(), held: gate() }));
    let taken = 0;
    const beforeApply = async () => {
      const p = pages[taken++];
      p.reached.open();
      await p.held.wait;
      return true;
    };
    const d = await dialer(net, { telemetry: otel.telemetry, hooks: { beforeApply } });
    await d.insert({ from: 'd' });
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1, [d]);
    await h.s.insert({ from: 'the hub' });
    await pages[0].reached.wait;
    const hubSide = { [ATTRS.node]: h.s.id };
    const dialerSide = { [ATTRS.node]: d.id };
    const hostLag = { ...hubSide, [ATTRS.role]: 'host', [ATTRS.peer]: d.id };
    expect(await otel.value(METRICS.peersConnected, { ...hubSide, [ATTRS.role]: 'host' })).toBe(1);
    expect(await otel.value(METRICS.peersConnected, { ...hubSide, [ATTRS.role]: 'dialer' })).toBe(0);
    expect(await otel.value(METRICS.peersConnected, { ...dialerSide, [ATTRS.role]: 'dialer' })).toBe(1);
    // The hub's log: the dialer's pushed op and its own.
    expect(await otel.value(METRICS.logOps, hubSide)).toBe(2);
    expect(await otel.value(METRICS.logOps, dialerSide)).toBe(internals(d).log.head);
    expect(await otel.points(METRICS.syncLag, hubSide)).toEqual([{ attributes: hostLag, value: 1 }]);
    expect(await otel.points(METRICS.syncLag, dialerSide)).toEqual([{ attributes: { ...dialerSide, [ATTRS.role]: 'dialer', [ATTRS.peer]: URL }, value: 0 }]);
    // A second write while the first page is held: two ops past the cursor.
    await h.s.insert({ from: 'the hub, again' });
    expect(await otel.value(METRICS.syncLag, hostLag)).toBe(2);
    // The first page taken, the feed moves on to the second: one op behind.
    pages[0].held.open();
    await pages[1].reached.wait;
    expect(await otel.value(METRICS.syncLag, hostLag)).toBe(1);
    pages[1].held.open();
    await closeAll(d, h.s);
  });

  it('syncom.sync.lag at a dialer: the ops of its own the host refused are ops the host is behind', async () => {
    const net = new Net();
    const h = await hub({ limits: { opsPerPush: 2 } }, { telemetry: otel.telemetry });
    net.units.set(URL, h.unit);
    const d = await dialer(net, { telemetry: otel.telemetry, sync: { hooks: { beforeBootstrap: () => false } } });
    for (let i = 0; i < 3; i++) await d.insert({ n: i });
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.length > 0, [d]);
    expect(await otel.points(METRICS.syncLag, { [ATTRS.node]: d.id })).toEqual([
      { attributes: { [ATTRS.node]: d.id, [ATTRS.role]: 'dialer', [ATTRS.peer]: URL }, value: 3 },
    ]);
    await closeAll(d, h.s);
  });

  it('syncom.log.floor follows retention: segments older than retention.days dropped raise it', async () => {
    let now = Date.UTC(2030, 0, 1);
    const s = await node({ telemetry: otel.telemetry, now: () => now, sync: { retention: { days: 1 }, log: { rollAfter: 1 } } });
    const attrs = { [ATTRS.node]: s.id };
    await s.insert({ n: 1 });
    await s.insert({ n: 2 });
    expect(await otel.value(METRICS.logFloor, attrs)).toBe(0);
    expect(await otel.value(METRICS.logOps, attrs)).toBe(2);
    now += 2 * DAY;
    const seals = new Promise<void>((resolve) => s.on('log', (e) => { if (e.kind === 'seal' && e.dropped.length) resolve(); }));
    await s.insert({ n: 3 });
    await seals;
    const floor = internals(s).log.floor;
    expect(floor).toBeGreaterThan(0);
    expect(await otel.value(METRICS.logFloor, attrs)).toBe(floor);
    expect(await otel.value(METRICS.logOps, attrs)).toBe(3 - floor);
    await closeAll(s);
  });

  it('a closed storage takes its gauges\' callback off the meter at the next collection', async () => {
    const removed: unknown[] = [];
    const s = await node({ telemetry: { meterProvider: watched(otel.meterProvider, removed) } });
    await s.insert({});
    expect(await otel.points(METRICS.logOps)).toEqual([{ attributes: { [ATTRS.node]: s.id }, value: 1 }]);
    await s.close();
    await otel.points(METRICS.logOps);
    await Promise.resolve();
    expect(removed).toHaveLength(1);
  });
});

import * as api from '@opentelemetry/api';
import { installTelemetry, type OtelApi } from '../../src';
import { ATTRS, METRICS, SPANS } from '../../src/telemetry';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { record } from '../sync/scenario-helpers';
import { Otel } from './otel';

const URL = 'memory://hub';
const dialerSide = { [ATTRS.role]: 'dialer', [ATTRS.peer]: URL };

/**
 * The browser entry leaves @opentelemetry/api out of its bundle: until the
 * app hands it in (installTelemetry), only the providers given to open()
 * report. Here the API is taken away as the browser entry runs, and put
 * back after.
 */
describe('telemetry without @opentelemetry/api installed (the browser entry)', () => {
  let otel: Otel;
  let previous: OtelApi | undefined;
  beforeEach(() => {
    otel = new Otel();
    previous = installTelemetry(undefined);
  });
  afterEach(async () => {
    installTelemetry(previous);
    api.trace.disable();
    await otel.shutdown();
  });

  async function bootstrapped(options: object) {
    const net = new Net();
    const h = await hub({ pageSize: 2 }, options);
    net.units.set(URL, h.unit);
    const d = await dialer(net, options);
    for (let i = 0; i < 3; i++) await h.s.insert({ n: i });
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1, [d]);
    return { h, d };
  }

  it('OPT-16: providers given to open() still get spans, snapshot pages under their bootstrap by explicit parent, counters and gauges', async () => {
    const { h, d } = await bootstrapped({ telemetry: otel.telemetry });
    const [boot] = otel.spans(SPANS.bootstrap, dialerSide);
    const pages = otel.spans(SPANS.snapshotPage, dialerSide);
    expect(pages).toHaveLength(2);
    for (const p of pages) expect(p.parentSpanContext?.spanId).toBe(boot.spanContext().spanId);
    const back = await h.s.insert({ title: 'from the hub' });
    await until(async () => (await d.has(back)) && otel.spans(SPANS.changesPage).length === 1, [d]);
    expect(await otel.value(METRICS.opsApplied, { [ATTRS.role]: 'dialer' })).toBe(1);
    expect(await otel.value(METRICS.logOps, { [ATTRS.node]: h.s.id })).toBeGreaterThan(0);
    await closeAll(d, h.s);
  });

  it('OPT-16: with no provider given, the global tracer is not reached until installTelemetry(api) hands the API in', async () => {
    api.trace.setGlobalTracerProvider(otel.tracerProvider);
    const first = await bootstrapped({});
    expect(otel.exporter.getFinishedSpans()).toEqual([]);
    await closeAll(first.d, first.h.s);
    installTelemetry(api);
    const second = await bootstrapped({});
    expect(otel.spans(SPANS.bootstrap, dialerSide)).toHaveLength(1);
    await closeAll(second.d, second.h.s);
  });
});

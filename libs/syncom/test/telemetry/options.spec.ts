import { metrics, trace } from '@opentelemetry/api';
import { open } from '../../src';
import { ATTRS, METRICS, SPANS } from '../../src/telemetry';
import { closeAll, hub } from '../sync/helpers';
import { greet, helloOf } from '../sync/scenario-helpers';
import { Otel } from './otel';

describe('telemetry: the option', () => {
  let otel: Otel;
  beforeEach(() => { otel = new Otel(); });
  afterEach(async () => {
    trace.disable();
    metrics.disable();
    await otel.shutdown();
  });

  it('OPT-16: absent, telemetry goes to the globally registered providers; false turns it off', async () => {
    // Registered before open(): the global meter is taken there.
    trace.setGlobalTracerProvider(otel.tracerProvider);
    metrics.setGlobalMeterProvider(otel.meterProvider);
    const global = await hub();
    const off = await hub({}, { telemetry: false });
    await greet(global.unit, off.s);
    await greet(off.unit, global.s);
    expect(otel.spans(SPANS.hello)).toEqual([expect.objectContaining({ attributes: { [ATTRS.role]: 'host', [ATTRS.peer]: off.s.id } })]);
    expect((await otel.points(METRICS.logOps)).map((p) => p.attributes[ATTRS.node])).toEqual([global.s.id]);
    await closeAll(global.s, off.s);
  });

  it('with no SDK anywhere, the default is the API\'s no-op: replication runs as before', async () => {
    const h = await hub();
    const p = await hub();
    await expect(h.unit.call('hello', helloOf(p.s, ['*'], { token: 't' }), {})).resolves.toMatchObject({ node: h.s.id });
    await closeAll(h.s, p.s);
  });

  it('open() refuses a telemetry option that is neither false nor an object, with INVALID_ARGUMENT', async () => {
    for (const bad of [true, 'otel', 1, null]) {
      await expect(open({ path: 'x', backend: 'memory', telemetry: bad as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });
});

import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { SyncomError } from '../../src';
import type { SyncManager } from '../../src/sync/manager';
import { ATTRS, SPANS } from '../../src/telemetry';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { record } from '../sync/scenario-helpers';
import { Otel } from './otel';

const URL = 'memory://hub';
const dialerSide = { [ATTRS.role]: 'dialer', [ATTRS.peer]: URL };

describe('telemetry: spans', () => {
  let otel: Otel;
  beforeEach(() => { otel = new Otel(); });
  afterEach(() => otel.shutdown());

  /** A hub and a dialer on the memory link, both reporting to `otel`; the dialer holds one record before it dials. */
  async function pair(hubOptions = {}) {
    const net = new Net();
    const h = await hub(hubOptions, { telemetry: otel.telemetry });
    net.units.set(URL, h.unit);
    const d = await dialer(net, { telemetry: otel.telemetry });
    const mine = await d.insert({ title: 'from d' });
    return { h, d, mine };
  }

  it('OPT-16: the telemetry option beside sync gives spans for hello and push, sent by the dialer and received by the host', async () => {
    const { h, d, mine } = await pair();
    await d.sync.addNode({ url: URL, token: 't' });
    await until(async () => otel.spans(SPANS.push).length === 2 && (await h.s.has(mine)), [h.s, d]);
    const host = { [ATTRS.role]: 'host', [ATTRS.peer]: d.id };
    expect(otel.spans(SPANS.hello, dialerSide)).toEqual([expect.objectContaining({ kind: SpanKind.CLIENT, status: { code: SpanStatusCode.UNSET } })]);
    expect(otel.spans(SPANS.hello, host)).toEqual([expect.objectContaining({ kind: SpanKind.SERVER })]);
    expect(otel.spans(SPANS.push, { ...dialerSide, [ATTRS.ops]: 1, [ATTRS.applied]: 1 })).toEqual([expect.objectContaining({ kind: SpanKind.CLIENT })]);
    expect(otel.spans(SPANS.push, { ...host, [ATTRS.ops]: 1, [ATTRS.applied]: 1 })).toEqual([expect.objectContaining({ kind: SpanKind.SERVER })]);
    await closeAll(d, h.s);
  });

  it('a bootstrap span holds the dialer\'s snapshot pages; the host serves each in a span of its own; a changes page applied is a span', async () => {
    const { h, d } = await pair({ pageSize: 2 });
    for (let i = 0; i < 3; i++) await h.s.insert({ n: i });
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1, [d]);
    const [boot] = otel.spans(SPANS.bootstrap, dialerSide);
    // The hub holds 4 records by then (its 3 and the dialer's pushed one), served 2 a page.
    expect(boot.attributes[ATTRS.entries]).toBe(4);
    const pages = otel.spans(SPANS.snapshotPage, dialerSide);
    expect(pages.map((p) => [p.attributes[ATTRS.offset], p.attributes[ATTRS.entries]])).toEqual([[0, 2], [2, 2]]);
    for (const p of pages) expect(p.parentSpanContext?.spanId).toBe(boot.spanContext().spanId);
    const served = otel.spans(SPANS.snapshotPage, { [ATTRS.role]: 'host', [ATTRS.peer]: d.id });
    expect(served.map((p) => [p.kind, p.attributes[ATTRS.offset], p.attributes[ATTRS.entries]])).toEqual([[SpanKind.SERVER, 0, 2], [SpanKind.SERVER, 2, 2]]);
    const back = await h.s.insert({ title: 'from the hub' });
    await until(async () => (await d.has(back)) && otel.spans(SPANS.changesPage).length === 1, [d]);
    expect(otel.spans(SPANS.changesPage, { ...dialerSide, [ATTRS.ops]: 1, [ATTRS.applied]: 1 })).toEqual([expect.objectContaining({ kind: SpanKind.CONSUMER })]);
    await closeAll(d, h.s);
  });

  it('a failure sets status ERROR with the SyncomError code: a push over opsPerPush, on both sides', async () => {
    const { h, d } = await pair({ limits: { opsPerPush: 1 } });
    await d.insert({ title: 'a second' });
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.length > 0, [d]);
    const failed = { status: { code: SpanStatusCode.ERROR, message: 'OPS_PER_PUSH' } };
    const [sent] = otel.spans(SPANS.push, dialerSide);
    const [received] = otel.spans(SPANS.push, { [ATTRS.role]: 'host' });
    for (const s of [sent, received]) {
      expect(s).toMatchObject(failed);
      expect(s.attributes[ATTRS.errorType]).toBe('OPS_PER_PUSH');
    }
    await closeAll(d, h.s);
  });

  it('a host\'s refused hello is a failed span too (UNAUTHORIZED), its peer set once the hello has checked', async () => {
    const { h, d } = await pair();
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 'wrong' });
    await until(() => errors.length > 0, [d]);
    const [answered] = otel.spans(SPANS.hello, { [ATTRS.role]: 'host' });
    expect(answered).toMatchObject({ status: { code: SpanStatusCode.ERROR, message: 'UNAUTHORIZED' }, attributes: { [ATTRS.peer]: d.id } });
    expect(otel.spans(SPANS.hello, dialerSide)[0].status).toEqual({ code: SpanStatusCode.ERROR, message: 'UNAUTHORIZED' });
    await closeAll(d, h.s);
  });

  it('the reconciliation helper names its span syncom.reconciliation and fails it with the code of what it threw', async () => {
    const { h, d } = await pair();
    // The manager's own span handle: storage.sync's type leaves it out, as it does init and close.
    const t = (d.sync as SyncManager).telemetry;
    await expect(t.reconciliation('dialer', URL, async () => 'rounds')).resolves.toBe('rounds');
    await expect(t.reconciliation('host', d.id, async () => { throw new SyncomError('PAGE_FAILED', 'a range failed'); })).rejects.toMatchObject({ code: 'PAGE_FAILED' });
    expect(otel.spans(SPANS.reconciliation).map((s) => [s.kind, s.attributes[ATTRS.role], s.status.code, s.status.message])).toEqual([
      [SpanKind.CLIENT, 'dialer', SpanStatusCode.UNSET, undefined],
      [SpanKind.SERVER, 'host', SpanStatusCode.ERROR, 'PAGE_FAILED'],
    ]);
    await closeAll(d, h.s);
  });
});

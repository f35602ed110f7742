import { formatEventId } from '../../src';
import type { SubscribeOptions } from '../../src/link';
import { ATTRS, METRICS } from '../../src/telemetry';
import { MAX_PEER_LABELS } from '../../src/telemetry/sync-telemetry';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { record } from '../sync/scenario-helpers';
import { Otel } from './otel';

/** A hello claiming `node`: any text a peer likes (no proveNodes, signatures not required). */
const hello = (node: string) => ({ node, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' });

/** A feed that takes its first page and never acknowledges it: its cursor stays where it started. */
const stuck = (from: string): SubscribeOptions => ({ lastEventId: from, onData: () => new Promise<void>(() => undefined), onError: () => undefined });

describe('telemetry: the peers a metric names are bounded', () => {
  let otel: Otel;
  beforeEach(() => { otel = new Otel(); });
  afterEach(() => otel.shutdown());

  it('OPT-16: past MAX_PEER_LABELS node ids, syncom.ops.limited and syncom.ops.rejected count a greeted peer under "(other)": a peer picking fresh ids adds no series', async () => {
    const h = await hub({ limits: { opsPerPush: 1 } }, { telemetry: otel.telemetry });
    const peers = MAX_PEER_LABELS + 44;
    for (let i = 0; i < peers; i++) {
      const ctx = {};
      await h.unit.call('hello', hello(`chosen-${i}`), ctx);
      // Over opsPerPush: limited; then one op that does not unpack: rejected, malformed.
      await expect(h.unit.call('push', { ops: ['a', 'b'] }, ctx)).rejects.toMatchObject({ code: 'OPS_PER_PUSH' });
      await h.unit.call('push', { ops: ['not an op'] }, ctx);
      h.unit.disconnect(ctx);
    }
    const host = { [ATTRS.node]: h.s.id, [ATTRS.role]: 'host' };
    for (const metric of [METRICS.opsLimited, METRICS.opsRejected]) {
      const points = await otel.points(metric, host);
      const labels = points.map((p) => p.attributes[ATTRS.peer]);
      // One series per label: the first MAX_PEER_LABELS ids by their own name, every later one under '(other)'.
      expect(new Set(labels).size).toBe(MAX_PEER_LABELS + 1);
      expect(labels).toEqual(expect.arrayContaining(['chosen-0', `chosen-${MAX_PEER_LABELS - 1}`, '(other)']));
      expect(labels).not.toContain(`chosen-${MAX_PEER_LABELS}`);
      // Nothing is lost: every refusal is counted, the later ones together.
      expect(points.reduce((n, p) => n + p.value, 0)).toBe(peers);
      expect(points.find((p) => p.attributes[ATTRS.peer] === '(other)')?.value).toBe(peers - MAX_PEER_LABELS);
    }
    // A peer named before the bound keeps its own series.
    const ctx = {};
    await h.unit.call('hello', hello('chosen-0'), ctx);
    await h.unit.call('push', { ops: ['not an op'] }, ctx);
    expect(await otel.value(METRICS.opsRejected, { ...host, [ATTRS.peer]: 'chosen-0' })).toBe(2);
    await closeAll(h.s);
  });

  it('OPT-16: syncom.sync.lag names the peers the counters named, and every later peer under "(other)" with the largest lag among them', async () => {
    const h = await hub({}, { telemetry: otel.telemetry });
    for (let i = 0; i < 5; i++) await h.s.insert({ i });
    const at = (seq: number) => formatEventId(internals(h.s).log.epoch, seq);
    // The counters name MAX_PEER_LABELS peers first (an op that does not unpack: rejected, malformed).
    for (let i = 0; i < MAX_PEER_LABELS; i++) {
      const ctx = {};
      await h.unit.call('hello', hello(`chosen-${i}`), ctx);
      await h.unit.call('push', { ops: ['not an op'] }, ctx);
      h.unit.disconnect(ctx);
    }
    // Then many fresh ids with a feed each, lagging 1 to 4 ops, and one 5 ops behind; and a peer the counters named, 2 behind.
    const feeds: object[] = [];
    const feed = async (node: string, from: number) => {
      const ctx = {};
      await h.unit.call('hello', hello(node), ctx);
      h.unit.subscribe('changes', {}, ctx, stuck(at(from)));
      feeds.push(ctx);
    };
    for (let i = 0; i < 300; i++) await feed(`fresh-${i}`, 1 + (i % 4));
    await feed('fresh-far', 0);
    await feed('chosen-7', 3);
    const host = { [ATTRS.node]: h.s.id, [ATTRS.role]: 'host' };
    const lags = async () => Object.fromEntries((await otel.points(METRICS.syncLag, host)).map((p) => [p.attributes[ATTRS.peer], p.value]));
    expect(await lags()).toEqual({ 'chosen-7': 2, '(other)': 5 });
    expect(await otel.points(METRICS.syncLag, { 'otel.metric.overflow': true })).toEqual([]);
    // The farthest behind of them gone, "(other)" carries the next.
    h.unit.disconnect(feeds[300]);
    expect(await lags()).toEqual({ 'chosen-7': 2, '(other)': 4 });
    await closeAll(h.s);
  });

  it('OPT-16: a lag series whose peers are no longer live reads 0 at every later collection, not the lag it last had', async () => {
    const net = new Net();
    const h = await hub({ limits: { opsPerPush: 2 } }, { telemetry: otel.telemetry });
    for (let i = 0; i < 3; i++) await h.s.insert({ i });
    // A host's feeds: one named, and past the bound, under "(other)".
    const feeds: object[] = [];
    for (let i = 0; i <= MAX_PEER_LABELS; i++) {
      const ctx = {};
      await h.unit.call('hello', hello(`peer-${i}`), ctx);
      h.unit.subscribe('changes', {}, ctx, stuck(formatEventId(internals(h.s).log.epoch, 0)));
      feeds.push(ctx);
    }
    const host = { [ATTRS.node]: h.s.id, [ATTRS.role]: 'host' };
    expect(await otel.value(METRICS.syncLag, { ...host, [ATTRS.peer]: 'peer-0' })).toBe(3);
    expect(await otel.value(METRICS.syncLag, { ...host, [ATTRS.peer]: '(other)' })).toBe(3);
    for (const ctx of feeds) h.unit.disconnect(ctx);
    expect(h.s.sync.hosted()).toEqual([]);
    for (let scrape = 0; scrape < 2; scrape++) {
      const points = await otel.points(METRICS.syncLag, host);
      expect(points).toHaveLength(MAX_PEER_LABELS + 1);
      expect(points.every((p) => p.value === 0)).toBe(true);
    }
    // A dialed hub, 3 of the dialer's ops behind (the hub refuses its pushes), then no longer dialed. Its url is labelled without credentials.
    const url = 'memory://ops:pw-SECRET@hub?apikey=KEY-SECRET';
    net.units.set(url, h.unit);
    const d = await dialer(net, { telemetry: otel.telemetry, sync: { hooks: { beforeBootstrap: () => false } } });
    for (let i = 0; i < 3; i++) await d.insert({ n: i });
    const errors = record(d, 'error');
    await d.sync.addNode({ url, token: 't' });
    await until(() => errors.length > 0, [d]);
    const dialed = { [ATTRS.node]: d.id, [ATTRS.role]: 'dialer' };
    expect(await otel.points(METRICS.syncLag, dialed)).toEqual([{ attributes: { ...dialed, [ATTRS.peer]: 'memory://hub' }, value: 3 }]);
    await d.sync.stop();
    expect(await otel.points(METRICS.syncLag, dialed)).toEqual([{ attributes: { ...dialed, [ATTRS.peer]: 'memory://hub' }, value: 0 }]);
    await closeAll(d, h.s);
  });
});

import { ATTRS, METRICS } from '../../src/telemetry';
import { MAX_PEER_LABELS } from '../../src/telemetry/sync-telemetry';
import { closeAll, hub } from '../sync/helpers';
import { Otel } from './otel';

/** A hello claiming `node`: any text a peer likes (no proveNodes, signatures not required). */
const hello = (node: string) => ({ node, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' });

describe('telemetry: the peers a counter names are bounded', () => {
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
});

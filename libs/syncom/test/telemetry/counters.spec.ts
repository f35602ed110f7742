import { IsOptional, IsString } from 'class-validator';
import { packOps, type Op, type OpenOptions } from '../../src';
import { ATTRS, METRICS } from '../../src/telemetry';
import { buildNoteClass } from '../schema/fixtures';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { craft, greet, opsOf, push, record } from '../sync/scenario-helpers';
import { Otel } from './otel';

const URL = 'memory://hub';
const DAY = 86_400_000;
const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');

describe('telemetry: counters', () => {
  let otel: Otel;
  beforeEach(() => { otel = new Otel(); });
  afterEach(() => otel.shutdown());

  it('OPT-16: syncom.ops.rejected counts a push\'s refused ops by reason — forged, unsigned, malformed, skew, scope, invalid — and syncom.ops.applied the rest', async () => {
    const options: Partial<OpenOptions> = {
      telemetry: otel.telemetry, schema: { version: 1, types: { Note: buildNoteClass() } }, sync: { scope: typed, signatures: 'require' },
    };
    const h = await hub({}, options);
    const p = await node();
    const ctx = await greet(h.unit, p, ['Note']);
    const ok = craft(p, { type: 'write', id: 'ok', data: { $type: 'Note', title: 'ok' } }, 'Note', 1);
    const invalid = craft(p, { type: 'write', id: 'invalid', data: { $type: 'Note', title: 5 } }, 'Note', 2);
    const forged = { ...craft(p, { type: 'write', id: 'forged', data: { $type: 'Note', title: 'x' } }, 'Note', 3), data: { $type: 'Note', title: 'y' } };
    const unsigned = { origin: p.id, seq: 1, ts: Date.now(), type: 'write', id: 'unsigned', scope: '*', data: { u: 1 } } as Op;
    const skew = craft(p, { type: 'write', id: 'skew', data: {}, ts: Date.now() + 3 * DAY }, '*', 2);
    const scope = craft(p, { type: 'write', id: 'scope', data: { $type: 'Doc' } }, 'Doc', 1);
    const noEntry = craft(p, { type: 'merge', id: 'merge', data: { not: 'an entry' } as never, from: h.s.id }, '*', 3);
    const packed = [...packOps([ok, invalid, forged, unsigned, skew, scope, noEntry]), 'not a packed op'];
    const answer = await h.unit.call('push', { ops: packed }, ctx);
    expect(answer).toMatchObject({ applied: 1, skipped: 1, forged: 1, unsigned: 1, malformed: 3, outOfScope: 1 });
    // The reasons telemetry tells apart are not on the wire: the push answer keeps its shape.
    expect(Object.keys(answer as object)).not.toEqual(expect.arrayContaining(['skew']));
    expect(Object.keys(answer as object)).not.toEqual(expect.arrayContaining(['invalid']));
    const host = { [ATTRS.node]: h.s.id, [ATTRS.role]: 'host' };
    const reasons = (await otel.points(METRICS.opsRejected, { ...host, [ATTRS.peer]: p.id })).map((pt) => [pt.attributes[ATTRS.reason], pt.value]);
    expect(Object.fromEntries(reasons)).toEqual({ forged: 1, unsigned: 1, malformed: 2, skew: 1, scope: 1, invalid: 1 });
    expect(await otel.points(METRICS.opsApplied)).toEqual([{ attributes: host, value: 1 }]);
    await closeAll(h.s, p);
  });

  it('a dialer counts what it refuses of a changes page as role dialer, under the hub\'s url', async () => {
    const net = new Net();
    // A hub that checks no signatures takes a forged op in and relays it; the dialer, verifying, refuses it.
    const h = await hub({}, { sync: { signatures: false } });
    net.units.set(URL, h.unit);
    const d = await dialer(net, { telemetry: otel.telemetry });
    const p = await node();
    const forged = { ...craft(p, { type: 'write', id: 'f', data: { v: 1 } }, '*', 1), data: { v: 2 } };
    const syncs = record(d, 'sync');
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    // After the bootstrap, so the op comes on the changes feed rather than inside a snapshot entry.
    await until(() => boots.length === 1, [d]);
    await push(h.unit, await greet(h.unit, p), [forged]);
    await until(() => syncs.some((e) => e.forged === 1), [d]);
    const dialerSide = { [ATTRS.node]: d.id, [ATTRS.role]: 'dialer', [ATTRS.peer]: URL };
    expect(await otel.points(METRICS.opsRejected)).toEqual([{ attributes: { ...dialerSide, [ATTRS.reason]: 'forged' }, value: 1 }]);
    await closeAll(d, h.s, p);
  });

  it('HOST-19: syncom.ops.limited counts the host\'s limit refusals apart by reason: OPS_PER_PUSH, BYTES_PER_PUSH and OPS_PER_SECOND', async () => {
    const clock = { t: Date.now() };
    const limits = { opsPerPush: 3, bytesPerPush: 4000, opsPerSecond: 4 };
    const h = await hub({ limits }, { telemetry: otel.telemetry, now: () => clock.t });
    const p = await node();
    const ctx = await greet(h.unit, p);
    const ops = Array.from({ length: 8 }, (_, i) => craft(p, { type: 'write', id: `r${i}`, data: { i } }, '*', i + 1));
    const big = craft(p, { type: 'write', id: 'big', data: { text: 'x'.repeat(5000) } }, '*', 1);
    await expect(push(h.unit, ctx, ops.slice(0, 4))).rejects.toMatchObject({ code: 'OPS_PER_PUSH' });
    await expect(push(h.unit, ctx, [big])).rejects.toMatchObject({ code: 'BYTES_PER_PUSH' });
    await expect(push(h.unit, ctx, ops.slice(0, 3))).resolves.toMatchObject({ applied: 3 });
    await expect(push(h.unit, ctx, ops.slice(3, 5))).rejects.toMatchObject({ code: 'OPS_PER_SECOND' });
    await expect(push(h.unit, ctx, ops.slice(3, 5))).rejects.toMatchObject({ code: 'OPS_PER_SECOND' });
    const points = await otel.points(METRICS.opsLimited, { [ATTRS.node]: h.s.id, [ATTRS.role]: 'host', [ATTRS.peer]: p.id });
    expect(Object.fromEntries(points.map((pt) => [pt.attributes[ATTRS.reason], pt.value]))).toEqual({ OPS_PER_PUSH: 1, BYTES_PER_PUSH: 1, OPS_PER_SECOND: 2 });
    await closeAll(h.s, p);
  });

  it('syncom.ops.limited counts a refused push by reason at the host and at the dialer it refused', async () => {
    const net = new Net();
    const h = await hub({ limits: { opsPerPush: 1 } }, { telemetry: otel.telemetry });
    net.units.set(URL, h.unit);
    // No bootstrap: nothing lands after the refusal to start a recovery, so the counts stay put.
    const d = await dialer(net, { telemetry: otel.telemetry, sync: { hooks: { beforeBootstrap: () => false } } });
    await d.insert({ n: 1 });
    await d.insert({ n: 2 });
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.length > 0, [d]);
    expect(errors.map((e) => e.code)).toEqual(['OPS_PER_PUSH']);
    const points = await otel.points(METRICS.opsLimited, { [ATTRS.reason]: 'OPS_PER_PUSH' });
    expect(points.map((pt) => [pt.attributes[ATTRS.node], pt.attributes[ATTRS.role], pt.attributes[ATTRS.peer], pt.value]).sort()).toEqual([
      [d.id, 'dialer', URL, 1],
      [h.s.id, 'host', d.id, 1],
    ].sort());
    await closeAll(d, h.s);
  });
  it('OPT-16 HOST-19: a push taken up to a type change its rate cannot pay for counts what it took: the ops applied before the 429 are counted once, as its limit is', async () => {
    class Tagged { @IsOptional() @IsString({ each: true }) tags?: string[]; }
    class Labelled { @IsOptional() @IsString({ each: true }) tags?: string[]; }
    const now = () => 1_000_000;
    const h = await hub({ limits: { opsPerSecond: 10 } }, { telemetry: otel.telemetry, now, schema: { version: 1, types: { Tagged, Labelled } } });
    const p = await node({ now });
    await p.set('r', { $type: 'Tagged' });
    await p.add('r', 'tags', Array.from({ length: 400 }, (_, i) => `e${i}`));
    const ctx = await greet(h.unit, p);
    expect(await push(h.unit, ctx, opsOf(p))).toMatchObject({ applied: 2 });
    // Each flip after an element added is judged anew; the first, at 400 values, runs the bucket into debt.
    for (let i = 0; i < 2; i++) {
      await p.add('r', 'tags', [`x${i}`]);
      await p.update('r', { $type: i === 0 ? 'Labelled' : 'Tagged' });
    }
    await expect(push(h.unit, ctx, opsOf(p).slice(2))).rejects.toMatchObject({ code: 'OPS_PER_SECOND', status: 429 });
    expect((await h.s.get('r'))?.$type).toBe('Labelled');
    const host = { [ATTRS.node]: h.s.id, [ATTRS.role]: 'host' };
    expect(await otel.points(METRICS.opsApplied)).toEqual([{ attributes: host, value: 2 + 3 }]);
    const limited = await otel.points(METRICS.opsLimited, { ...host, [ATTRS.peer]: p.id });
    expect(limited.map((pt) => [pt.attributes[ATTRS.reason], pt.value])).toEqual([['OPS_PER_SECOND', 1]]);
    await closeAll(h.s, p);
  });
});

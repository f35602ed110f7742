import { internals } from '../../src/testing/internals';
import { applyPeerOps, type Storage } from '../../src';
import { FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED } from '../../src/op';
import { buildNoteClass } from '../schema/fixtures';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { craft, reopen } from '../sync/scenario-helpers';
import { entriesOf, MARK, spyUnit, type Wire } from './helpers';

/** The sync events' gap counts, summed: a peer missing a seq reports a gap. */
function gapsOf(s: Storage): { gaps: number } {
  const out = { gaps: 0 };
  s.sync.on('sync', (e) => (out.gaps += e.gaps));
  return out;
}

describe('sealed records do not replicate', () => {
  it('GUAR-19: the dialer pushes no sealed op, its hello vector holds no sealed stream, and the host sees its stream without a hole', async () => {
    const net = new Net();
    const h = await hub();
    const wire: Wire = { calls: [], answers: [] };
    net.units.set('memory://h', spyUnit(h.unit, wire));
    const d = await dialer(net);
    const gaps = gapsOf(d);
    const a = await d.insert({ x: 1 });
    const secret = await d.insert({ title: MARK }, { sealed: true });
    await d.update(secret, { more: MARK });
    const b = await d.insert({ x: 2 });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(async () => (await h.s.has(a)) && h.s.has(b), [h.s, d]);
    // Live, on the relay path: a sealed op between two that travel.
    await d.update(secret, { live: MARK });
    const c = await d.insert({ x: 3 });
    await until(async () => h.s.has(c), [h.s, d]);
    expect(await h.s.has(secret)).toBe(false);
    expect(entriesOf(h.s, secret)).toEqual([]);
    expect(internals(h.s).log.vector[d.id]).toBe(3);
    expect(internals(d).log.vector[d.id]).toBe(3);
    expect(internals(d).log.sealedSeq).toBe(3);
    expect(gaps.gaps).toBe(0);
    const sent = wire.calls.map((x) => x.args).join('\n');
    expect(sent).not.toContain(secret);
    expect(sent).not.toContain(MARK);
    const hellos = wire.calls.filter((x) => x.method === 'hello').map((x) => JSON.parse(x.args) as { vector: Record<string, number> });
    expect(hellos.length).toBeGreaterThan(0);
    for (const hello of hellos) expect(hello.vector[d.id] ?? 0).toBeLessThanOrEqual(2);
    await closeAll(d, h.s);
  });

  it('GUAR-19: the host serves no sealed op in its changes feed or its snapshot pages, and no sealed stream in its vectors', async () => {
    const net = new Net();
    const h = await hub();
    const wire: Wire = { calls: [], answers: [] };
    net.units.set('memory://h', spyUnit(h.unit, wire));
    const secret = await h.s.insert({ title: MARK }, { sealed: true });
    for (let i = 0; i < 3; i++) await h.s.inc(secret, 'n', 1);
    const a = await h.s.insert({ x: 1 });
    const d = await dialer(net);
    const gaps = gapsOf(d);
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(async () => d.has(a), [d]);
    await h.s.update(secret, { live: MARK });
    const b = await h.s.insert({ x: 2 });
    await until(async () => d.has(b), [d]);
    expect(await d.has(secret)).toBe(false);
    expect(entriesOf(d, secret)).toEqual([]);
    const served = wire.answers.join('\n');
    expect(served).not.toContain(secret);
    expect(served).not.toContain(MARK);
    const snapshot = wire.answers.map((x) => JSON.parse(x) as { vector?: Record<string, number>; token?: string }).find((x) => x.token);
    expect(snapshot?.vector).toEqual({ [h.s.id]: 1 });
    // The dialer holds the host's stream whole: the sealed ops took no seq of it.
    expect(internals(d).log.vector[h.s.id]).toBe(2);
    expect(internals(h.s).log.vector[h.s.id]).toBe(2);
    expect(gaps.gaps).toBe(0);
    await closeAll(d, h.s);
  });

  it('GUAR-19 LOG-20: sealed ops retention dropped are no own ops a host lacks: no UNDELIVERABLE, and the host takes the stream whole', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    const d = await dialer(net, { sync: { retention: { ops: 1000 }, log: { rollAfter: 2 } } });
    for (let i = 0; i < 12; i++) await Promise.all(Array.from({ length: 100 }, () => d.insert({ secret: MARK }, { sealed: true })));
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => d.insert({ i })));
    await internals(d).committer.idle();
    expect(internals(d).log.floor).toBeGreaterThan(0);
    const codes: string[] = [];
    d.sync.on('error', (e) => codes.push(e.code));
    const gaps = gapsOf(d);
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => d.sync.listNodes()[0]?.acked[d.id] === 5, [d, h.s]);
    for (const id of ids) expect(await h.s.has(id)).toBe(true);
    expect(codes).toEqual([]);
    expect(gaps.gaps).toBe(0);
    await closeAll(d, h.s);
  });

  it('GUAR-19: a peer\'s op for an id this node keeps sealed is skipped and counted, the sealed record stays, and the op is logged and relayed', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://h', h.unit);
    await h.s.set('shared', { mine: MARK }, { sealed: true });
    const r = await dialer(net);
    const p = await dialer(net);
    for (const s of [r, p]) await s.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => [r, p].every((s) => s.sync.peers()[0]?.subscribed === true), [r, p]);
    const applied: { applied: number; skipped: number }[] = [];
    h.s.on('apply', (e) => applied.push(e));
    await p.set('shared', { theirs: 1 });
    await until(async () => (await r.get('shared'))?.theirs === 1, [r, h.s]);
    expect(await h.s.get('shared')).toEqual({ mine: MARK });
    expect(applied).toEqual([{ peer: expect.anything(), applied: 0, skipped: 1 }]);
    expect(entriesOf(h.s, 'shared').map((e) => e.flags & (FLAG_SEALED | FLAG_SKIPPED))).toEqual([FLAG_SEALED, FLAG_SKIPPED]);
    await closeAll(r, p, h.s);
  });

  it('GUAR-19: applyPeerOps counts a page\'s ops on a sealed id as skipped; the stream moves on with no gap', async () => {
    const s = await node();
    const p = await node();
    await s.set('shared', { mine: MARK }, { sealed: true });
    await p.set('shared', { theirs: 1 });
    await p.inc('shared', 'n', 2);
    await p.insert({ other: true });
    const res = await applyPeerOps(s, internals(p).log.read(0).map((e) => e.op), { via: { url: 'memory://p', node: p.id } });
    expect(res).toMatchObject({ applied: 1, skipped: 2, gaps: 0, duplicates: 0 });
    expect(await s.get('shared')).toEqual({ mine: MARK });
    expect(internals(s).log.vector[p.id]).toBe(3);
    await closeAll(s, p);
  });

  it('GUAR-19 OPS-11: purging a record kept sealed here scrubs this node\'s sealed ops only: a peer\'s ops of that id, before the purge and after, are relayed whole (a second purge too), and a node that takes them holds the peer\'s record', async () => {
    const s = await node();
    const p = await node();
    const c = await node();
    await s.set('shared', { mine: MARK }, { sealed: true });
    await p.set('shared', { theirs: 1 });
    const via = { url: 'memory://p', node: p.id };
    await applyPeerOps(s, internals(p).log.read(0).map((e) => e.op), { via });
    await s.purge('shared');
    await p.update('shared', { later: 2 });
    await applyPeerOps(s, internals(p).log.read(0).map((e) => e.op), { via });
    // Purged again (the way to finish a torn scrub): the same rule.
    await s.purge('shared');
    const peers = entriesOf(s, 'shared').filter((e) => e.op.origin === p.id);
    expect(peers.map((e) => [e.op.type, e.op.data])).toEqual([['write', { theirs: 1 }], ['set', { later: 2 }]]);
    expect(entriesOf(s, 'shared').filter((e) => e.flags & FLAG_SEALED).every((e) => e.op.type === 'purge' || e.op.data === undefined)).toBe(true);
    // What a node resuming from this one receives: its relayed ops, none of its sealed ones.
    const relayed = internals(s).log.read(0).filter((e) => !(e.flags & FLAG_SEALED)).map((e) => e.op);
    await applyPeerOps(c, relayed, { via: { url: 'memory://s', node: s.id } });
    expect(await c.get('shared')).toEqual({ theirs: 1, later: 2 });
    await closeAll(s, p, c);
  });

  it('GUAR-19 GUAR-26: a peer\'s op held for a newer schema never lands on a record sealed here meanwhile, even after the upgrade', async () => {
    const v1 = { version: 1, types: { Note: buildNoteClass() } };
    const v2 = { version: 2, types: { Note: buildNoteClass() } };
    const s = await node({ schema: v1 });
    const p = await node();
    const held = craft(p, { type: 'write', id: 'x', data: { $type: 'Note', title: 'from v2', tags: [] }, v: 2 }, '*', 1);
    await applyPeerOps(s, [held], { via: { url: 'memory://p', node: p.id } });
    expect(internals(s).log.read(0).map((e) => e.flags)).toEqual([FLAG_HELD]);
    await s.set('x', { $type: 'Note', title: MARK, tags: [] }, { sealed: true });
    await s.close();
    const upgraded = await reopen(s, { schema: v2 });
    expect(await upgraded.get('x')).toEqual({ $type: 'Note', title: MARK, tags: [] });
    await closeAll(upgraded, p);
  });
});

import { internals } from '../../src/testing/internals';
import { unpackOps, type Op, type OpenOptions, type Storage, type SyncEvents } from '../../src';
import type { SubscribeOptions } from '../../src/link';
import { closeAll, dialer, hub, Net, node, until, within } from './helpers';
import { craft, greet, opsOf, push, record, waitFor, WatchedNet } from './scenario-helpers';
import { IsOptional, IsString } from 'class-validator';

const URL = 'memory://hub';
const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
const scoped: Partial<OpenOptions> = { sync: { scope: typed } };

/** A hub and a dialer that both scope records by $type. */
async function scopedPair(scopes: string[], net: Net = new Net()) {
  const h = await hub({}, scoped);
  net.units.set(URL, h.unit);
  const d = await dialer(net, { sync: { connect: net.connect, scope: typed } });
  const boots = record(d, 'bootstrap');
  return { h, d, net, boots, add: () => d.sync.addNode({ url: URL, token: 't', scopes }) };
}

/** The $type of every record a storage holds, sorted. */
async function types(s: Storage) {
  return (await s.list()).map((r) => (r.data.$type as string) ?? '*').sort();
}

/** A changes feed opened by hand; ops delivered collect in `ops`. */
function feed(h: { unit: import('../../src').HostUnit }, ctx: object, args: unknown, from: string, moved: () => void = () => undefined) {
  const ops: Op[] = [];
  const errors: unknown[] = [];
  // `moved` runs after each page or error: a feed's callbacks raise no storage event a waitFor() would re-check on.
  const options: SubscribeOptions = {
    lastEventId: from,
    onData: (v) => void (ops.push(...unpackOps((v as { ops?: unknown }).ops).ops), moved()),
    onError: (e) => void (errors.push(e), moved()),
  };
  h.unit.subscribe('changes', args, ctx, options);
  return { ops, errors };
}

describe('scopes', () => {
  it('SCOPE-1 SCOPE-9 OPT-4: by default every record is in scope *, and every peer gets everything', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    await h.s.insert({ $type: 'Doc' });
    await h.s.insert({ $type: 'Note' });
    const d = await dialer(net);
    await d.sync.addNode({ url: URL, token: 't', scopes: ['Doc'] });
    await until(async () => (await d.list()).length === 2, [d]);
    expect((await h.s.list()).map((r) => r.meta.scope)).toEqual(['*', '*']);
    expect(opsOf(h.s).every((o) => o.scope === '*')).toBe(true);
    await closeAll(d, h.s);
  });

  it('SCOPE-2 SCOPE-4 SCOPE-5 SCOPE-6 SCOPE-8 LOG-10: an op is in the scope of the record as it leaves it; streams run per origin and scope', async () => {
    const s = await node(scoped);
    const id = await s.insert({ $type: 'Doc', title: 'a' });
    await s.update(id, { title: 'b' });
    await s.inc(id, 'views', 1);
    await s.add(id, 'tags', ['x']);
    await s.remove(id, 'tags', ['x']);
    await s.update(id, { $type: 'Note' });
    await s.inc(id, 'views', 1);
    await s.delete(id);
    const g = await s.insert({ plain: true });
    expect(opsOf(s).map((o) => [o.type, o.scope, o.seq])).toEqual([
      ['write', 'Doc', 1], ['set', 'Doc', 2], ['inc', 'Doc', 3], ['add', 'Doc', 4], ['remove', 'Doc', 5],
      ['set', 'Note', 1], ['inc', 'Note', 2], ['delete', 'Note', 3], ['write', '*', 1],
    ]);
    expect(internals(s).log.vector).toEqual({ [`${s.id}@Doc`]: 5, [`${s.id}@Note`]: 3, [s.id]: 1 });
    expect((await s.list()).map((r) => [r.id, r.meta.scope])).toEqual([[g, '*']]);
    await closeAll(s);
  });

  it('SCOPE-7: the scope is read after the validator, so a scope field a default fills counts', async () => {
    class Task {
      @IsString() title!: string;
      @IsOptional() @IsString() kind: string = 'Doc';
    }
    const s = await node({ schema: { version: 1, types: { Task } }, sync: { scope: (_id, d) => (d.kind as string) ?? '*' } });
    await s.insert({ $type: 'Task', title: 't' });
    expect(opsOf(s)[0]).toMatchObject({ scope: 'Doc', data: { kind: 'Doc' } });
    await closeAll(s);
  });

  it('SCOPE-3 SCOPE-9 SCOPE-20: a dialer registered with scopes [Doc] gets the Doc and the global records only, by snapshot and by feed', async () => {
    const { h, d, boots, add } = await scopedPair(['Doc']);
    await h.s.insert({ $type: 'Doc', n: 1 });
    await h.s.insert({ $type: 'Note', n: 1 });
    await h.s.insert({ n: 1 });
    await add();
    await waitFor(() => boots.length === 1, [d]);
    expect(await types(d)).toEqual(['*', 'Doc']);
    await h.s.insert({ $type: 'Note', n: 2 });
    await h.s.insert({ $type: 'Doc', n: 2 });
    const last = await h.s.insert({ n: 2 });
    await until(() => d.has(last), [d]);
    expect(await types(d)).toEqual(['*', '*', 'Doc', 'Doc']);
    await closeAll(d, h.s);
  });

  it('SCOPE-24 SCOPE-25: a scoped feed moves past other scopes\' ops without sending a page', async () => {
    const net = new WatchedNet();
    const { h, d, boots, add } = await scopedPair(['Doc'], net);
    await add();
    await waitFor(() => boots.length === 1, [d]);
    const link = net.links[0];
    const syncs = record(d, 'sync');
    const pages = link.stats().pagesDelivered;
    for (let i = 0; i < 10; i++) await h.s.insert({ $type: 'Note', i });
    const doc = await h.s.insert({ $type: 'Doc' });
    await until(() => d.has(doc), [d]);
    await waitFor(() => d.sync.peers()[0].cursor === internals(h.s).log.eventId(), [d]);
    expect(link.stats().pagesDelivered - pages).toBe(1);
    expect(syncs.filter((e) => e.received > 0)).toEqual([expect.objectContaining({ received: 1, applied: 1 })]);
    for (let i = 0; i < 3; i++) await h.s.insert({ $type: 'Note', i });
    // The Doc's page may still be waiting for its ack at the host (a loaded machine): the feed steps past the
    // Notes when the ack lands, which raises no event of its own, so the loop is turned until then.
    const head = internals(h.s).log.eventId();
    for (let turn = 0; turn < 10_000 && h.s.sync.hosted()[0].cursor !== head; turn++) await new Promise((r) => setImmediate(r));
    expect(h.s.sync.hosted()[0].cursor).toBe(head);
    expect(link.stats().pagesDelivered - pages).toBe(1);
    await closeAll(d, h.s);
  });

  it('SCOPE-10 SCOPE-11 LIFE-5: hosted() shows the scopes each feed serves; delivery stays on the subscription', async () => {
    const { h, d, boots, add } = await scopedPair(['Doc', 'Task']);
    await add();
    await waitFor(() => boots.length === 1, [d]);
    await waitFor(() => h.s.sync.hosted().length === 1, [h.s, d]);
    expect(h.s.sync.hosted()[0]).toMatchObject({ node: d.id, scopes: ['Doc', 'Task'] });
    await closeAll(d, h.s);
  });

  it('SCOPE-12 SCOPE-13 LIFE-10 GUAR-15: a pushed op declaring an ungranted scope is refused (outOfScope, refused scope), never applied or logged; other streams are untouched', async () => {
    const h = await hub({}, scoped);
    const p = await node(scoped);
    await p.insert({ $type: 'Note', n: 1 });
    await p.insert({ $type: 'Doc', n: 1 });
    await p.insert({ n: 1 });
    const refused = record(h.s, 'refused');
    const ctx = await greet(h.unit, p, ['Doc']);
    const answer = await push(h.unit, ctx, opsOf(p));
    expect(answer).toMatchObject({ applied: 2, outOfScope: 1, vector: { [`${p.id}@Doc`]: 1, [p.id]: 1 } });
    expect(refused).toEqual([{ node: p.id, reason: 'scope', count: 1 }]);
    expect(await types(h.s)).toEqual(['*', 'Doc']);
    expect(opsOf(h.s).map((o) => o.scope)).toEqual(['Doc', '*']);
    expect(internals(h.s).log.vector[`${p.id}@Note`]).toBeUndefined();
    await closeAll(h.s, p);
  });

  it('SCOPE-14 SCOPE-15: the host scopes the record before the op — a set declared global on a Doc record is refused to a peer without Doc', async () => {
    const h = await hub({}, scoped);
    const p = await node();
    const write = craft(p, { type: 'write', id: 'doc1', data: { $type: 'Doc', title: 'a' } }, 'Doc', 1);
    const full = await greet(h.unit, p, ['*']);
    await push(h.unit, full, [write]);
    expect(h.s.scopeOf('doc1')).toBe('Doc');
    const refused = record(h.s, 'refused');
    const notes = await greet(h.unit, p, ['Note']);
    const set = craft(p, { type: 'set', id: 'doc1', data: { title: 'hijacked' } }, '*', 1);
    expect(await push(h.unit, notes, [set])).toMatchObject({ applied: 0, outOfScope: 1 });
    const inc = craft(p, { type: 'inc', id: 'doc1', key: 'views', value: 1 } as Partial<Op> & Pick<Op, 'type' | 'id'>, '*', 1);
    expect(await push(h.unit, notes, [inc])).toMatchObject({ applied: 0, outOfScope: 1 });
    expect(await h.s.get('doc1')).toEqual({ $type: 'Doc', title: 'a' });
    expect(refused).toEqual([{ node: p.id, reason: 'scope', count: 1 }, { node: p.id, reason: 'scope', count: 1 }]);
    await closeAll(h.s, p);
  });

  it('SCOPE-14: a deleted record keeps its scope at the host — a peer without it can neither revive nor purge the tombstone', async () => {
    const h = await hub({}, scoped);
    const doc = await h.s.insert({ $type: 'Doc', title: 'a' });
    await h.s.delete(doc);
    const p = await node();
    const refused = record(h.s, 'refused');
    const ctx = await greet(h.unit, p, ['Note']);
    const revive = craft(p, { type: 'set', id: doc, data: { title: 'revived' } }, '*', 1);
    const rewrite = craft(p, { type: 'write', id: doc, data: { $type: 'Note' } }, 'Note', 1);
    const purge = craft(p, { type: 'purge', id: doc }, '*', 1);
    expect(await push(h.unit, ctx, [revive])).toMatchObject({ applied: 0, outOfScope: 1 });
    expect(await push(h.unit, ctx, [rewrite])).toMatchObject({ applied: 0, outOfScope: 1 });
    expect(await push(h.unit, ctx, [purge])).toMatchObject({ applied: 0, outOfScope: 1 });
    expect(refused.map((r) => r.reason)).toEqual(['scope', 'scope', 'scope']);
    expect(await h.s.has(doc)).toBe(false);
    expect(internals(h.s).committer.current(doc)?.purged).toBeFalsy();
    expect(h.s.scopeOf(doc)).toBe('Doc');
    const docs = await greet(h.unit, p, ['Doc']);
    expect(await push(h.unit, docs, [craft(p, { type: 'set', id: doc, data: { title: 'back' } }, 'Doc', 1)])).toMatchObject({ applied: 1 });
    await closeAll(h.s, p);
  });

  it('SCOPE-16: a write that would move a record from another scope into the peer\'s own scope is refused', async () => {
    const h = await hub({}, scoped);
    const note = await h.s.insert({ $type: 'Note', secret: 's' });
    const p = await node();
    const ctx = await greet(h.unit, p, ['Doc']);
    const move = craft(p, { type: 'write', id: note, data: { $type: 'Doc', title: 'mine now' } }, 'Doc', 1);
    const answer = await push(h.unit, ctx, [move]);
    expect(answer).toMatchObject({ applied: 0, outOfScope: 1 });
    expect(await h.s.get(note)).toEqual({ $type: 'Note', secret: 's' });
    await closeAll(h.s, p);
  });

  it('SCOPE-17: a new record whose data puts it in another scope is refused, whatever scope the op declares', async () => {
    const h = await hub({}, scoped);
    const p = await node();
    const ctx = await greet(h.unit, p, ['Doc']);
    const asDoc = craft(p, { type: 'write', id: 'n1', data: { $type: 'Note' } }, 'Doc', 1);
    const asGlobal = craft(p, { type: 'write', id: 'n2', data: { $type: 'Note' } }, '*', 1);
    const fine = craft(p, { type: 'write', id: 'd1', data: { $type: 'Doc' } }, 'Doc', 1);
    expect(await push(h.unit, ctx, [asDoc, asGlobal])).toMatchObject({ applied: 0, outOfScope: 2 });
    expect(await push(h.unit, ctx, [fine])).toMatchObject({ applied: 1, outOfScope: 0 });
    expect((await h.s.list()).map((r) => r.id)).toEqual(['d1']);
    await closeAll(h.s, p);
  });

  it('SCOPE-18: an op the host\'s scope function throws on is refused the same way', async () => {
    const h = await hub({}, { sync: { scope: (id, d) => { if (d.bad) throw new Error('no scope for this'); return typed(id, d); } } });
    const p = await node();
    const refused = record(h.s, 'refused');
    const ctx = await greet(h.unit, p, ['Doc']);
    const bad = craft(p, { type: 'write', id: 'b1', data: { $type: 'Doc', bad: true } }, 'Doc', 1);
    expect(await push(h.unit, ctx, [bad])).toMatchObject({ applied: 0, outOfScope: 1 });
    expect(refused).toEqual([{ node: p.id, reason: 'scope', count: 1 }]);
    expect(await h.s.has('b1')).toBe(false);
    await closeAll(h.s, p);
  });

  it('SCOPE-19: a scope refusal is a gap in that op\'s stream at the host — the peer\'s later ops of that scope stop there too', async () => {
    const h = await hub({}, scoped);
    const p = await node();
    const ctx = await greet(h.unit, p, ['Doc']);
    const outside = craft(p, { type: 'write', id: 'x1', data: { $type: 'Note' } }, 'Doc', 1);
    const after = craft(p, { type: 'write', id: 'x2', data: { $type: 'Doc' } }, 'Doc', 2);
    expect(await push(h.unit, ctx, [outside, after])).toMatchObject({ applied: 0, outOfScope: 1, gaps: 1 });
    expect(internals(h.s).log.vector[`${p.id}@Doc`]).toBeUndefined();
    await closeAll(h.s, p);
  });

  it('SCOPE-20 SCOPE-21 SCOPE-22: snapshot and changes serve what is asked and granted; * or nothing asks for the granted list; only ungranted scopes: 403 SCOPES', async () => {
    const h = await hub({}, scoped);
    for (const t of ['Doc', 'Note', 'Task']) await h.s.insert({ $type: t });
    await h.s.insert({ g: 1 });
    const p = await node();
    const ctx = await greet(h.unit, p, ['Doc', 'Note']);
    const snap = async (scopes?: string[]) => {
      const page = (await h.unit.call('snapshot', scopes ? { scopes } : {}, ctx)) as { entries: { id: string }[] };
      return page.entries.map((e) => h.s.scopeOf(e.id)).sort();
    };
    expect(await snap(['Doc', 'Task'])).toEqual(['*', 'Doc']);
    expect(await snap(['*'])).toEqual(['*', 'Doc', 'Note']);
    expect(await snap()).toEqual(['*', 'Doc', 'Note']);
    await expect(snap(['Task'])).rejects.toMatchObject({ code: 'SCOPES', status: 403 });
    const from = internals(h.s).log.eventId(0);
    let moved = (): void => undefined;
    const served = new Promise<void>((resolve) => {
      // Checked once the feed's own step finished (as waitFor does after an event): hosted() lists a feed after its first page.
      moved = () => void setImmediate(() => { if (asked.ops.length === 2 && all.ops.length === 3 && none.errors.length === 1) resolve(); });
    });
    const asked = feed(h, ctx, { scopes: ['Note', 'Task'] }, from, () => moved());
    const all = feed(h, ctx, {}, from, () => moved());
    const none = feed(h, ctx, { scopes: ['Task'] }, from, () => moved());
    moved();
    await within(served, 10_000, 'the three feeds');
    expect(asked.ops.map((o) => o.scope).sort()).toEqual(['*', 'Note']);
    expect(all.ops.map((o) => o.scope).sort()).toEqual(['*', 'Doc', 'Note']);
    expect(none.errors[0]).toMatchObject({ code: 'SCOPES', status: 403 });
    expect(h.s.sync.hosted().map((f) => f.scopes)).toEqual([['Note'], ['Doc', 'Note']]);
    await closeAll(h.s, p);
  });

  it('SCOPE-20 BOOT-5: a scoped snapshot carries the vector of the served scopes only', async () => {
    const h = await hub({}, scoped);
    for (const t of ['Doc', 'Note']) await h.s.insert({ $type: t });
    await h.s.insert({ g: 1 });
    const p = await node();
    const ctx = await greet(h.unit, p, ['Doc']);
    const page = (await h.unit.call('snapshot', {}, ctx)) as { vector: Record<string, number> };
    expect(page.vector).toEqual({ [h.s.id]: 1, [`${h.s.id}@Doc`]: 1 });
    const all = (await h.unit.call('snapshot', {}, await greet(h.unit, p, ['*']))) as { vector: Record<string, number> };
    expect(all.vector).toEqual(internals(h.s).log.vector);
    await closeAll(h.s, p);
  });

  it('SCOPE-20 BOOT-11: bootstrapping scoped from one host does not mark the other scopes as had — they still arrive through a fuller node', async () => {
    const net = new Net();
    const top = await hub({}, scoped);
    net.units.set('memory://top', top.unit);
    const full = await dialer(net, { sync: { connect: net.connect, scope: typed } });
    net.units.set('memory://full', full.sync.unit({ access: 'public' }));
    const d = await dialer(net, { sync: { connect: net.connect, scope: typed } });
    const boots = record(d, 'bootstrap');
    await full.sync.addNode({ url: 'memory://top', token: 't' });
    await d.sync.addNode({ url: 'memory://full' });
    await waitFor(() => boots.length === 1, [d]);
    await d.sync.enableNode('memory://full', false);
    const note = await top.s.insert({ $type: 'Note' });
    await until(() => full.has(note), [full]);
    await d.sync.addNode({ url: 'memory://top', token: 't', scopes: ['Doc'] });
    await waitFor(() => boots.length === 2, [d]);
    expect(await d.has(note)).toBe(false);
    await d.sync.enableNode('memory://full', true);
    await until(() => d.has(note), [d]);
    await closeAll(d, full, top.s);
  });

  it('SCOPE-23: a peer granted * is bound by no scope check', async () => {
    const h = await hub({}, scoped);
    const note = await h.s.insert({ $type: 'Note' });
    const p = await node();
    const refused = record(h.s, 'refused');
    const ctx = await greet(h.unit, p, ['*']);
    const ops = [
      craft(p, { type: 'write', id: note, data: { $type: 'Doc' } }, 'Task', 1),
      craft(p, { type: 'write', id: 'new', data: { $type: 'Secret' } }, '*', 1),
    ];
    expect(await push(h.unit, ctx, ops)).toMatchObject({ applied: 2, outOfScope: 0 });
    expect(refused).toEqual([]);
    await closeAll(h.s, p);
  });

  it('SCOPE-12 LIFE-10: a scoped dialer pushes only what it carries; the host never refuses it', async () => {
    const { h, d, boots, add } = await scopedPair(['Doc']);
    const refused: SyncEvents['refused'][0][] = [];
    h.s.sync.on('refused', (e) => refused.push(e));
    await add();
    await waitFor(() => boots.length === 1, [d]);
    await d.insert({ $type: 'Note', private: true });
    const doc = await d.insert({ $type: 'Doc' });
    await until(() => h.s.has(doc), [h.s]);
    expect(await types(h.s)).toEqual(['Doc']);
    expect(refused).toEqual([]);
    await closeAll(d, h.s);
  });

  it('SCOPE-27: a node that carries one scope relays only that scope; a peer wanting more must reach a fuller node', async () => {
    const net = new Net();
    const full = await hub({}, scoped);
    net.units.set('memory://full', full.unit);
    const mid = await dialer(net, { sync: { connect: net.connect, scope: typed } });
    net.units.set('memory://mid', mid.sync.unit({ access: 'public' }));
    const leaf = await dialer(net, { sync: { connect: net.connect, scope: typed } });
    await full.s.insert({ $type: 'Doc' });
    await full.s.insert({ $type: 'Note' });
    await full.s.insert({ g: 1 });
    await mid.sync.addNode({ url: 'memory://full', token: 't', scopes: ['Doc'] });
    await until(async () => (await mid.list()).length === 2, [mid]);
    await leaf.sync.addNode({ url: 'memory://mid', scopes: ['*'] });
    await until(async () => (await leaf.list()).length === 2, [leaf]);
    const late = await full.s.insert({ $type: 'Doc', late: true });
    await full.s.insert({ $type: 'Note', late: true });
    await until(() => leaf.has(late), [leaf]);
    expect(await types(leaf)).toEqual(['*', 'Doc', 'Doc']);
    await closeAll(leaf, mid, full.s);
  });
});

import { internals } from '../../src/testing/internals';
import type { Op, Storage } from '../../src';
import { FLAG_SKIPPED } from '../../src/op';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { craft, greet, opsOf, push, record, waitFor } from '../sync/scenario-helpers';
import { buildNoteClass } from '../schema/fixtures';

const URL = 'memory://h';

/** A dialer of the net's hub that has bootstrapped (so it reads the hub's feed from here on). */
async function subscribed(net: Net, options: Parameters<typeof dialer>[1] = {}): Promise<Storage> {
  const d = await dialer(net, options);
  let booted = 0;
  d.sync.on('bootstrap', () => booted++);
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => booted === 1, [d]);
  return d;
}

/** The log entry of a record's write op. */
const entryOf = (s: Storage, id: string) => internals(s).log.read(0).find((e) => e.op.id === id && e.op.type === 'write');

describe('a host checks, every node decides', () => {
  it('GUAR-14 GUAR-13: an op the host\'s beforeApply skipped still reaches a third node, whose own hook runs on it and which applies it', async () => {
    const net = new Net();
    const atHost: Op[] = [];
    const h = await hub({}, { hooks: { beforeApply: ({ op }) => (atHost.push(op), op.data?.skip !== true) } });
    net.units.set(URL, h.unit);
    const atC: { op: Op; node: string }[] = [];
    const c = await subscribed(net, { hooks: { beforeApply: ({ op, peer }) => (atC.push({ op, node: peer.node }), true) } });
    const a = await subscribed(net);

    const id = await a.insert({ skip: true });
    await until(() => internals(c).committer.committed.has(id), [c, h.s]);
    // Skipped at the host: logged (flagged), not applied.
    expect(atHost.filter((op) => op.id === id)).toHaveLength(1);
    expect(entryOf(h.s, id)!.flags & FLAG_SKIPPED).toBe(FLAG_SKIPPED);
    expect(await h.s.has(id)).toBe(false);
    // C ran its own hook on the relayed op and applied it.
    expect(atC.filter((s) => s.op.id === id)).toEqual([{ op: expect.objectContaining({ origin: a.id, id }), node: h.s.id }]);
    expect(await c.get(id)).toEqual({ skip: true });
    expect(entryOf(c, id)!.flags & FLAG_SKIPPED).toBe(0);
    await closeAll(a, c, h.s);
  });

  it('GUAR-14 GUAR-13: an op the host\'s validator fails still reaches the nodes behind it; each judges it by its own validators', async () => {
    const net = new Net();
    const strict = { version: 1, types: { Note: buildNoteClass() } };
    const h = await hub({}, { schema: strict });
    net.units.set(URL, h.unit);
    const hostErrors: string[] = [];
    h.s.on('error', (e) => hostErrors.push(e.code));
    const loose = await subscribed(net);
    const alsoStrict = await subscribed(net, { schema: strict });
    const strictErrors: string[] = [];
    alsoStrict.on('error', (e) => strictErrors.push(e.code));
    const a = await subscribed(net);

    const id = await a.insert({ $type: 'Note', title: 5 });
    await until(() => internals(loose).committer.committed.has(id) && entryOf(alsoStrict, id) !== undefined, [loose, alsoStrict, h.s]);
    expect(hostErrors).toEqual(['OP_INVALID']);
    expect(await h.s.has(id)).toBe(false);
    // No validator for Note here: applied.
    expect(await loose.get(id)).toEqual({ $type: 'Note', title: 5 });
    // The same validator as the host's, run again here: skipped here too, by this node's own judgement.
    expect(strictErrors).toEqual(['OP_INVALID']);
    expect(entryOf(alsoStrict, id)!.flags & FLAG_SKIPPED).toBe(FLAG_SKIPPED);
    expect(await alsoStrict.has(id)).toBe(false);
    await closeAll(a, loose, alsoStrict, h.s);
  });

  it('GUAR-15: a skewed, a malformed and a forged op pushed to a host stop there: not logged, not in its feed, not pushed on to the host it dials', async () => {
    const net = new Net();
    const up = await hub();
    net.units.set('memory://up', up.unit);
    const h = await hub({}, { sync: { connect: net.connect } });
    net.units.set(URL, h.unit);
    const upBoots: unknown[] = [];
    h.s.sync.on('bootstrap', (e) => upBoots.push(e));
    await h.s.sync.addNode({ url: 'memory://up', token: 't' });
    await until(() => upBoots.length === 1, [h.s]);
    const c = await subscribed(net);
    const p = await node();
    const ok = craft(p, { type: 'write', id: 'ok', data: { n: 1 } }, '*', 1);
    const skewed = craft(p, { type: 'write', id: 'skewed', data: {}, ts: Date.now() + 3 * 86_400_000 }, '*', 2);
    const forged = { ...craft(p, { type: 'write', id: 'forged', data: { n: 1 } }, '*', 3), data: { n: 2 } };
    const malformed = { ...craft(p, { type: 'write', id: 'malformed', data: {} }, '*', 4), type: 'nope' } as unknown as Op;
    const answer = await push(h.unit, await greet(h.unit, p), [ok, skewed, forged, malformed]);
    expect(answer).toMatchObject({ applied: 1, malformed: 2, forged: 1 });
    await until(async () => (await c.has('ok')) && (await up.s.has('ok')), [c, up.s, h.s]);
    for (const s of [h.s, c, up.s]) expect(opsOf(s).filter((op) => op.origin === p.id).map((op) => op.id)).toEqual(['ok']);
    await closeAll(p, c, h.s, up.s);
  });
});

describe('a page the host\'s beforeApply throws on (fake timers)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  it('GUAR-16: a push whose page the host\'s beforeApply throws on is refused whole (PAGE_FAILED), nothing of it logged, and offered again by the dialer, backed off, until it lands', async () => {
    const net = new Net();
    let failing = true;
    const h = await hub({}, { hooks: { beforeApply: () => { if (failing) throw new Error('not now'); return true; } } });
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const errors = record(d, 'error');
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    const ids = [await d.insert({ n: 1 }), await d.insert({ n: 2 })];
    await waitFor(() => errors.length > 0, [d]);
    await net.links[0].settle();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.code === 'PAGE_FAILED' && e.url === URL)).toBe(true);
    expect(opsOf(h.s).filter((op) => op.origin === d.id)).toEqual([]);
    failing = false;
    await jest.advanceTimersByTimeAsync(1000);
    await waitFor(async () => (await h.s.has(ids[0])) && (await h.s.has(ids[1])), [d, h.s]);
    expect(d.sync.peers()[0]).toMatchObject({ behind: false });
    await closeAll(d, h.s);
  });
});

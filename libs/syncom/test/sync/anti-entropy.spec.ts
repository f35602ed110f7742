import { internals } from '../../src/testing/internals';
import type { Storage } from '../../src';
import { createMemoryLink } from '../../src';
import { createReconciler } from '../../src/reconcile';
import { closeAll, dialer, hub, Net, records, until } from './helpers';
import { field, skipOnce } from './repair-helpers';

const URL = 'memory://h';



/** A hub and a dialer greeted with it, anti-entropy off unless asked. */
async function pair(o: { hostSkip?: string; dialerSkip?: string; interval?: number; sync?: Record<string, unknown> } = {}) {
  const net = new Net();
  const hs = o.hostSkip ? skipOnce(o.hostSkip) : undefined;
  const ds = o.dialerSkip ? skipOnce(o.dialerSkip) : undefined;
  const h = await hub({}, { sync: { ...o.sync, hooks: { beforeApply: hs?.beforeApply } } });
  net.units.set(URL, h.unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: o.interval ?? 0, ...o.sync, hooks: { beforeApply: ds?.beforeApply } } });
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
  return { net, h, d, hs, ds };
}

describe('RECON anti-entropy', () => {
  it('RECON: forceSync repairs a host that skipped a dialer op and a dialer that skipped a host op; both converge', async () => {
    const { net, h, d, hs, ds } = await pair({ hostSkip: 'from-d', dialerSkip: 'from-h' });
    const a = await d.insert({ x: 1 });
    const b = await h.s.insert({ y: 1 });
    await until(async () => (await h.s.has(a)) && (await d.has(b)), [d, h.s]);
    await d.update(a, { x: 'from-d' });
    await h.s.update(b, { y: 'from-h' });
    await until(() => hs!.state.skipped && ds!.state.skipped, [d, h.s]);
    await net.links[0].settle();
    expect([field(h.s, a, 'x'), field(d, b, 'y')]).toEqual([1, 1]);
    await d.sync.forceSync();
    expect([field(h.s, a, 'x'), field(d, b, 'y')]).toEqual(['from-d', 'from-h']);
    expect(await records(d)).toEqual(await records(h.s));
    await closeAll(d, h.s);
  });

  it('RECON: the anti-entropy timer (antiEntropyInterval) repairs without forceSync', async () => {
    const { h, d, hs } = await pair({ hostSkip: 'late', interval: 25 });
    const a = await d.insert({ x: 'late' });
    await until(() => hs!.state.skipped, [d, h.s]);
    await until(() => field(h.s, a, 'x') === 'late', [d, h.s]);
    await closeAll(d, h.s);
  });

  it('RECON: a record older than both logs (retention moved both floors past the skipped op) is repaired', async () => {
    const sync = { retention: { ops: 1000 }, log: { rollAfter: 5 } };
    const { net, h, d, hs } = await pair({ hostSkip: 'old', sync });
    const a = await d.insert({ x: 'old' });
    await until(() => hs!.state.skipped, [d, h.s]);
    for (let i = 0; i < 60; i++) await Promise.all(Array.from({ length: 25 }, (_, j) => d.insert({ i, j })));
    await until(() => d.sync.listNodes()[0].acked[d.id] === 1501, [d]);
    await net.links[0].settle();
    const aAt = (s: Storage) => internals(s).log.read(0).some((e) => e.op.id === a);
    // Retention drops segments as the log grows: a few more local writes let each side's floor pass the op.
    for (const s of [d, h.s]) {
      for (let k = 0; k < 50 && (aAt(s) || internals(s).log.floor === 0); k++) {
        await s.insert({ pad: k });
        await internals(s).committer.idle();
      }
    }
    expect([aAt(d), aAt(h.s), internals(d).log.floor > 0, internals(h.s).log.floor > 0]).toEqual([false, false, true, true]);
    expect(await h.s.has(a)).toBe(false);
    await d.sync.forceSync();
    expect(field(h.s, a, 'x')).toBe('old');
    await closeAll(d, h.s);
  });

  it('RECON SCOPE: a peer granted scope A never sees fingerprints, ids or records of B; an ungranted label is refused 403', async () => {
    const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');
    const crossed: string[] = [];
    const net = new Net();
    const skip = skipOnce('A-late');
    const h = await hub({}, { sync: { scope: typed, hooks: { beforeApply: skip.beforeApply } } });
    net.units.set(URL, h.unit);
    net.connect = () => {
      const link = createMemoryLink(h.unit);
      const call = link.call.bind(link);
      link.call = async (method, args) => {
        const answer = await call(method, args);
        crossed.push(JSON.stringify({ method, args, answer }));
        return answer;
      };
      net.links.push(link);
      return link;
    };
    const bIds = await Promise.all(Array.from({ length: 40 }, (_, i) => h.s.insert({ $type: 'B', i })));
    await Promise.all(Array.from({ length: 40 }, (_, i) => h.s.insert({ $type: 'A', i })));
    await h.s.insert({ g: 1 });
    const d = await dialer(net, { sync: { connect: net.connect, scope: typed, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't', scopes: ['A'] });
    await until(async () => (await d.list()).length === 41, [d]);
    const late = await Promise.all(Array.from({ length: 3 }, () => d.insert({ $type: 'A', v: 'A-late' })));
    await until(() => skip.state.skipped, [d, h.s]);
    await net.links[0].settle();
    await d.sync.forceSync();
    await until(async () => (await Promise.all(late.map((id) => h.s.has(id)))).every(Boolean), [h.s]);
    const calls = crossed.map((c) => JSON.parse(c) as { method: string; args: { scope?: string } });
    expect(calls.filter((c) => c.method === 'reconcile').map((c) => c.args.scope)).toEqual(expect.arrayContaining(['A', '*']));
    expect(calls.some((c) => c.method === 'reconcile' && c.args.scope === 'B')).toBe(false);
    for (const id of bIds) expect(crossed.some((c) => c.includes(id))).toBe(false);
    const ctx = {};
    await h.unit.call('hello', { node: 'p', vector: {}, epoch: 'e', schema: null, scopes: ['A'], token: 't' }, ctx);
    await expect(h.unit.call('reconcile', { scope: 'B', msg: { v: 1, ranges: [[null, 1, 'x']] } }, ctx)).rejects.toMatchObject({ status: 403, code: 'SCOPES' });
    await expect(h.unit.call('records', { scope: 'B', ids: [bIds[0]] }, ctx)).rejects.toMatchObject({ status: 403, code: 'SCOPES' });
    // An id the peer names itself that the host holds outside its scopes comes back as outside, never its record:
    // a merge of it would be refused (a push of it says as much), so the dialer logs none.
    expect(await h.unit.call('records', { scope: 'A', ids: [bIds[0]] }, ctx)).toEqual({ entries: [], taken: 1, outside: [bIds[0]] });
    expect(await h.unit.call('records', { scope: '*', ids: [bIds[0]] }, ctx)).toEqual({ entries: [], taken: 1, outside: [bIds[0]] });
    await closeAll(d, h.s);
  });

  it('RECON: a malformed or oversized reconcile message is refused (400 RECONCILE_MALFORMED, 413) and reconcile needs a session (428)', async () => {
    const h = await hub({ reconcileFrame: 32 * 1024 });
    await expect(h.unit.call('reconcile', { scope: '*', msg: { v: 1, ranges: [] } }, {})).rejects.toMatchObject({ status: 428 });
    const ctx = {};
    await h.unit.call('hello', { node: 'p', vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' }, ctx);
    await expect(h.unit.call('reconcile', { scope: '*', msg: { v: 2, ranges: [] } }, ctx)).rejects.toMatchObject({ status: 400, code: 'RECONCILE_MALFORMED' });
    await expect(h.unit.call('reconcile', { scope: '*', msg: { v: 1, pad: 'x'.repeat(40_000) } }, ctx)).rejects.toMatchObject({ status: 413 });
    await expect(h.unit.call('records', { scope: '*', ids: Array.from({ length: 10_001 }, (_, i) => `r${i}`) }, ctx)).rejects.toMatchObject({ status: 400 });
    expect(await h.unit.call('records', { scope: '*', ids: Array.from({ length: 600 }, (_, i) => `r${i}`) }, ctx)).toEqual({ entries: [], taken: 500 });
    await closeAll(h.s);
  });

  it('RECON: records are fetched in the host\'s pages when its pageSize is smaller than the dialer\'s', async () => {
    const net = new Net();
    const h = await hub({ pageSize: 7 });
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeApply: ({ op }) => !JSON.stringify(op.data ?? null).includes('bulk') } } });
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => h.s.insert({ i, tag: 'bulk' })));
    await until(() => (internals(d).log.vector[h.s.id] ?? 0) >= 30, [d]);
    expect(await d.has(ids[0])).toBe(false);
    await d.sync.forceSync();
    expect((await Promise.all(ids.map((id) => d.has(id)))).every(Boolean)).toBe(true);
    expect(await records(d)).toEqual(await records(h.s));
    await closeAll(d, h.s);
  });

  it('RECON WIRE: a host that advertises no reconcile/1 (an older build) is never asked to reconcile', async () => {
    const net = new Net();
    const skip = skipOnce('never-repaired');
    const h = await hub({}, { sync: { hooks: { beforeApply: skip.beforeApply } } });
    const methods: string[] = [];
    const older = Object.create(h.unit) as typeof h.unit;
    older.call = async (method, args, context) => {
      methods.push(method);
      const answer = (await h.unit.call(method, args, context)) as Record<string, unknown>;
      return method === 'hello' ? { ...answer, caps: undefined, version: undefined, versions: undefined } : answer;
    };
    net.units.set(URL, older);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    const a = await d.insert({ x: 'never-repaired' });
    await until(() => skip.state.skipped, [d, h.s]);
    await d.sync.forceSync();
    expect(methods.filter((m) => m === 'reconcile' || m === 'records')).toEqual([]);
    expect(await h.s.has(a)).toBe(false);
    await closeAll(d, h.s);
  });

  it('RECON: the host names its reconcile frame in hello; 3,000 records differing converge under a 32 KiB frame without a refusal', async () => {
    const net = new Net();
    const h = await hub({ reconcileFrame: 32 * 1024 });
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeApply: ({ op }) => !JSON.stringify(op.data ?? null).includes('bulk') } } });
    const errors: string[] = [];
    d.sync.on('error', (e) => errors.push(e.code));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    const ids = await Promise.all(Array.from({ length: 3000 }, (_, i) => h.s.insert({ i })));
    await until(() => (internals(d).log.vector[h.s.id] ?? 0) >= 3000, [d]);
    await Promise.all(ids.map((id) => h.s.update(id, { v: 'bulk' })));
    await until(() => (internals(d).log.vector[h.s.id] ?? 0) >= 6000, [d]);
    await d.sync.forceSync();
    expect(errors).toEqual([]);
    expect(await records(d)).toEqual(await records(h.s));
    const hello = { node: 'p', vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' };
    expect(await h.unit.call('hello', hello, {})).toMatchObject({ reconcileFrame: 32 * 1024 });
    await closeAll(d, h.s);
  });

  it('RECON: a host that never ends a reconciliation is cut off after 64 rounds and reported (RECONCILE_UNFINISHED), not taken as done', async () => {
    const net = new Net();
    const h = await hub();
    // The host answers every round with the opening of another set: each answer asks for more.
    const items = Array.from({ length: 40 }, (_, i) => ({ ts: 1000 + i, id: `other-${i}`, digest: 'a'.repeat(32) }));
    const foreign = createReconciler({ items }).initiate();
    let rounds = 0;
    const unit = Object.create(h.unit) as typeof h.unit;
    unit.call = (proc: string, args: unknown, ctx: object) => {
      if (proc !== 'reconcile') return h.unit.call(proc, args as never, ctx);
      rounds++;
      return Promise.resolve({ msg: foreign });
    };
    net.units.set(URL, unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true, [d]);
    await Promise.all([d.insert({ x: 1 }), d.insert({ x: 2 })]);
    const errors: string[] = [];
    d.sync.on('error', (e) => errors.push(e.code));
    await d.sync.forceSync();
    expect(rounds).toBe(64);
    expect(errors).toEqual(['RECONCILE_UNFINISHED']);
    expect(d.sync.peers()[0].lastError).toMatchObject({ code: 'RECONCILE_UNFINISHED', url: URL });
    await closeAll(d, h.s);
  });
});

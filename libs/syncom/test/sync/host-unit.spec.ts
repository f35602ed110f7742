import { internals } from '../../src/testing/internals';
import { createMemoryLink, SyncomError, unpackOps, type HostUnit, type SyncEvents } from '../../src';
import type { SubscribeOptions } from '../../src/link';
import { closeAll, dialer, hub, Net, node, records, until } from './helpers';
import { craft, dialerOf, greet, helloOf, opsOf, push, record, waitFor, WatchedNet } from './scenario-helpers';

const URL = 'memory://hub';

/** Open a changes feed by hand; pages collect in `pages`. */
function feed(unit: HostUnit, context: object, args: unknown = {}, lastEventId?: string) {
  const pages: { value: { ops?: unknown; bootstrap?: boolean }; eventId?: string }[] = [];
  const errors: unknown[] = [];
  const options: SubscribeOptions = {
    lastEventId,
    onData: (value, eventId) => void pages.push({ value: value as never, eventId }),
    onError: (e) => void errors.push(e),
  };
  const sub = unit.subscribe('changes', args, context, options);
  return { pages, errors, sub };
}

describe('hosting: the unit', () => {
  it('HOST-1 PROTO-4 PROTO-5 PROTO-6 PROTO-7: storage.sync.unit() serves hello, push, changes and snapshot over any link — here by hand', async () => {
    const h = await hub();
    const p = await node();
    await p.insert({ from: 'p' });
    const mine = await h.s.insert({ from: 'h' });
    expect(typeof h.unit.call).toBe('function');
    expect(typeof h.unit.subscribe).toBe('function');
    expect(typeof h.unit.stream).toBe('function');
    expect(typeof h.unit.disconnect).toBe('function');
    const ctx = {};
    const answer = await h.unit.call('hello', helloOf(p, ['*'], { token: 't' }), ctx);
    expect(answer).toEqual({
      node: h.s.id, vector: internals(h.s).log.vector, epoch: internals(h.s).log.epoch, floor: internals(h.s).log.floor, schema: null,
      version: 1, versions: [1], caps: ['reconcile/1'], reconcileFrame: 512 * 1024, vectorMark: `${h.s.replica.vectorNonce}.${internals(h.s).log.head}`,
    });
    const pushed = await push(h.unit, ctx, opsOf(p));
    expect(pushed).toMatchObject({ applied: 1, duplicates: 0, gaps: 0, outOfScope: 0 });
    const f = feed(h.unit, ctx, {}, internals(h.s).log.eventId(0));
    await waitFor(() => f.pages.length === 1, [h.s]);
    const { ops } = unpackOps(f.pages[0].value.ops);
    expect(ops.map((o) => o.id)).toEqual([mine]);
    const page = (await h.unit.call('snapshot', {}, ctx)) as { entries: { id: string }[]; next: unknown; total: number };
    expect(page).toMatchObject({ next: null, total: 2, vector: internals(h.s).log.vector, eventId: internals(h.s).log.eventId() });
    expect(page.entries.map((e) => e.id).sort()).toEqual((await h.s.list()).map((r) => r.id).sort());
    await expect(h.unit.call('nope', {}, ctx)).rejects.toMatchObject({ code: 'UNKNOWN_METHOD', status: 404 });
    f.sub.unsubscribe();
    expect(h.s.sync.hosted()).toEqual([]);
    await closeAll(h.s, p);
  });

  it('HOST-21: push, snapshot and changes without a current hello are answered 428; disconnect forgets the session', async () => {
    const h = await hub();
    const p = await node();
    await p.insert({ n: 1 });
    await expect(push(h.unit, {}, opsOf(p))).rejects.toMatchObject({ status: 428 });
    await expect(h.unit.call('snapshot', {}, {})).rejects.toMatchObject({ status: 428 });
    const f = feed(h.unit, {});
    await waitFor(() => f.errors.length === 1, [h.s]);
    expect(f.errors[0]).toMatchObject({ status: 428 });
    const ctx = await greet(h.unit, p, ['*']);
    h.unit.disconnect(ctx);
    await expect(push(h.unit, ctx, opsOf(p))).rejects.toMatchObject({ status: 428 });
    await closeAll(h.s, p);
  });

  it('HOST-2: sync.unit() refuses an access other than session or public, and an authorize or tracked that is no function, with INVALID_ARGUMENT', async () => {
    const h = await node();
    // A misspelt access had made a unit that served peers without a session, as 'public' does.
    for (const bad of [{ access: 'Session' }, { access: 'private' }, { access: '' }, { authorize: 't' }, { tracked: 5 }]) {
      expect(() => h.sync.unit(bad as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(Object.keys(bad)[0]) }));
    }
    const p = await node();
    await expect(h.sync.unit().call('hello', helloOf(p), {})).rejects.toMatchObject({ status: 401 });
    await closeAll(h, p);
  });

  it('HOST-2 SCOPE-12: sync.unit() refuses an exactScopes or proveNodes that is no boolean with INVALID_ARGUMENT naming it, rather than reading it its own way', async () => {
    const h = await node();
    // exactScopes was read `=== true` (a 'true' from an env file left it off, a scope boundary gone), proveNodes truthy ('false' was on).
    for (const bad of [{ exactScopes: 'true' }, { exactScopes: 1 }, { exactScopes: null }, { proveNodes: 'false' }, { proveNodes: 0 }]) {
      const option = Object.keys(bad)[0];
      expect(() => h.sync.unit({ access: 'public', ...bad } as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', option, message: expect.stringContaining(`${option} must be true or false`) }));
    }
    for (const good of [{ exactScopes: true, proveNodes: true }, { exactScopes: false, proveNodes: false }, { exactScopes: undefined, proveNodes: undefined }]) {
      expect(() => h.sync.unit({ access: 'public', ...good })).not.toThrow();
    }
    await closeAll(h);
  });

  it('HOST-2: access defaults to session — a hello on a connection without context.session is refused 401; with one it passes; public needs none', async () => {
    const h = await node();
    const guarded = h.sync.unit();
    const open = h.sync.unit({ access: 'public' });
    expect(guarded.access).toBe('session');
    expect(open.access).toBe('public');
    const contexts: object[] = [];
    const withSession = h.sync.unit({ authorize: (ctx) => { contexts.push(ctx); return true; } });
    const net = new Net();
    net.units.set('memory://guarded', guarded);
    net.units.set('memory://open', open);
    const d = await dialer(net, {
      sync: {
        connect: (n) => (n.url === 'memory://session' ? createMemoryLink(withSession, { context: { session: { user: 'alice' } } }) : net.connect(n)),
      },
    });
    const errors = record(d, 'error');
    const peers = record(d, 'peer');
    await d.sync.addNode({ url: 'memory://guarded' });
    await d.sync.addNode({ url: 'memory://open' });
    await d.sync.addNode({ url: 'memory://session' });
    await waitFor(() => errors.length === 1 && peers.filter((p) => p.connected).length === 2, [d]);
    expect(errors[0]).toMatchObject({ code: 'UNAUTHORIZED', status: 401, url: 'memory://guarded' });
    expect(peers.filter((p) => p.connected).map((p) => p.url).sort()).toEqual(['memory://open', 'memory://session']);
    expect(contexts[0]).toMatchObject({ session: { user: 'alice' } });
    await closeAll(d, h);
  });

  it('HOST-3 SCOPE-26 GUAR-24: authorize gates the handshake with the token and the scopes; false or a throw refuses it 401, a SyncomError AUTHORIZE_FAILED thrown (it could not judge) is 503', async () => {
    const seen: { token?: string; scopes: string[] }[] = [];
    const h = await hub({
      authorize: (_ctx, hello) => {
        seen.push({ token: hello.token, scopes: hello.scopes });
        if (hello.token === 'boom') throw new Error('authorize failed');
        if (hello.token === 'down') throw new SyncomError('AUTHORIZE_FAILED', 'the token store is down');
        return hello.token === 't';
      },
    });
    const p = await node();
    await expect(h.unit.call('hello', helloOf(p, ['Doc'], { token: 'wrong' }), {})).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    await expect(h.unit.call('hello', helloOf(p, ['*'], { token: 'boom' }), {})).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    await expect(h.unit.call('hello', helloOf(p, ['*'], { token: 'down' }), {})).rejects.toMatchObject({ code: 'AUTHORIZE_FAILED', status: 503, message: expect.not.stringContaining('store') });
    await expect(h.unit.call('hello', helloOf(p, ['*']), {})).rejects.toMatchObject({ status: 401 });
    await expect(h.unit.call('hello', helloOf(p, ['Doc'], { token: 't' }), {})).resolves.toMatchObject({ node: h.s.id });
    expect(seen).toEqual([{ token: 'wrong', scopes: ['Doc'] }, { token: 'boom', scopes: ['*'] }, { token: 'down', scopes: ['*'] }, { token: undefined, scopes: ['*'] }, { token: 't', scopes: ['Doc'] }]);
    const refusedCtx = {};
    await h.unit.call('hello', helloOf(p, ['*'], { token: 'wrong' }), refusedCtx).catch(() => undefined);
    await p.insert({ n: 1 });
    await expect(push(h.unit, refusedCtx, opsOf(p))).rejects.toMatchObject({ status: 428 });
    await expect(h.unit.call('hello', { node: 'x' }, {})).rejects.toMatchObject({ code: 'BAD_HELLO', status: 400 });
    await closeAll(h.s, p);
  });

  it('HOST-3: authorize is read fail-closed: only true or a non-empty string (an identity) admits; undefined (a branch without a return), null, 0, \'\' or an object refuse 401', async () => {
    const answers: Record<string, unknown> = { yes: true, alice: 'alice', none: undefined, nil: null, zero: 0, empty: '', obj: { user: 'a' }, one: 1 };
    const h = await hub({ authorize: ((_ctx: object, hello: { token?: string }) => answers[hello.token ?? '']) as never });
    const p = await node();
    for (const [token, answer] of Object.entries(answers)) {
      const call = h.unit.call('hello', helloOf(p, ['*'], { token }), {});
      if (answer === true || answer === 'alice') await expect(call).resolves.toMatchObject({ node: h.s.id });
      else await expect(call).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    }
    await closeAll(h.s, p);
  });

  it('HOST-4: tracked shapes each changes item from the page and its event id', async () => {
    const calls: [unknown, string][] = [];
    const h = await hub({ tracked: (data, eventId) => { calls.push([data, eventId]); return data; } });
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    const id = await h.s.insert({ n: 1 });
    await until(() => d.has(id), [d]);
    expect(calls[0]).toEqual([{ bootstrap: true, reason: 'floor' }, '']);
    expect(calls.at(-1)?.[1]).toBe(internals(h.s).log.eventId());
    expect(calls.at(-1)?.[0]).toMatchObject({ ops: expect.any(Array) });
    await closeAll(d, h.s);
  });

  it('HOST-5 BOOT-2: snapshot pages hold 500 records by default (the unit pageSize), tombstones included', async () => {
    const h = await hub();
    const ids = await Promise.all(Array.from({ length: 501 }, (_, i) => h.s.insert({ i })));
    await h.s.delete(ids[0]);
    const ctx = await greet(h.unit, h.s, ['*']);
    const first = (await h.unit.call('snapshot', {}, ctx)) as { entries: unknown[]; next: number; total: number; token: string };
    expect(first).toMatchObject({ next: 500, total: 501 });
    expect(first.entries).toHaveLength(500);
    const second = (await h.unit.call('snapshot', { token: first.token, offset: first.next }, ctx)) as { entries: unknown[]; next: unknown };
    expect(second.entries).toHaveLength(1);
    expect(second.next).toBeNull();
    const small = h.s.sync.unit({ access: 'public', pageSize: 200 });
    const net = new WatchedNet();
    net.units.set(URL, small);
    const d = await dialer(net);
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL });
    await waitFor(() => boots.length === 1, [d]);
    expect(boots[0]).toEqual({ url: URL, records: 501 });
    expect(net.watches[0].calls.filter((m) => m === 'snapshot')).toHaveLength(3);
    expect(await records(d)).toEqual(await records(h.s));
    expect(await d.has(ids[0])).toBe(false);
    await closeAll(d, h.s);
  });

  it('HOST-6 BOOT-3 LINK-5: pages stay within pageBytes; only a record above it makes a page over it, alone, streamed as NDJSON where the link can stream, inline where it cannot', async () => {
    const h = await hub({ pageBytes: 600 });
    for (let i = 0; i < 12; i++) await h.s.insert({ i, text: 'x'.repeat(40) });
    await h.s.insert({ big: 'y'.repeat(1000) });
    const streaming = new WatchedNet();
    streaming.units.set(URL, h.unit);
    const inline = new WatchedNet();
    inline.noStream = true;
    inline.units.set(URL, h.unit);
    const roomy = new WatchedNet();
    roomy.units.set(URL, h.s.sync.unit({ access: 'public' }));
    const dialers = [await dialer(streaming), await dialer(inline), await dialer(roomy)];
    const boots = dialers.map((d) => record(d, 'bootstrap'));
    for (const d of dialers) await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.every((b) => b.length === 1), dialers);
    expect(streaming.watches[0].streams).toBe(1);
    expect(inline.watches[0].streams).toBe(0);
    expect(roomy.watches[0].streams).toBe(0);
    for (const d of dialers) expect(await records(d)).toEqual(await records(h.s));
    await closeAll(...dialers, h.s);
  });

  it('HOST-6: without a pageBytes option the bound is 4 MiB: a record just under it comes inline, one just over it streamed', async () => {
    const MiB4 = 4 * 1024 * 1024;
    const under = await hub();
    await under.s.insert({ text: 'u'.repeat(MiB4 - 4096) });
    const over = await hub();
    await over.s.insert({ text: 'o'.repeat(MiB4 + 16) });
    const nets = [under, over].map((h) => {
      const net = new WatchedNet();
      net.units.set(URL, h.unit);
      return net;
    });
    const dialers = [await dialer(nets[0]), await dialer(nets[1])];
    const boots = dialers.map((d) => record(d, 'bootstrap'));
    for (const d of dialers) await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.every((b) => b.length === 1), dialers);
    expect(nets.map((n) => n.watches[0].streams)).toEqual([0, 1]);
    expect(await records(dialers[0])).toEqual(await records(under.s));
    expect(await records(dialers[1])).toEqual(await records(over.s));
    await closeAll(...dialers, under.s, over.s);
  });

  it('HOST-8: meta is copied onto the unit, for every procedure a transport hook reads', async () => {
    const h = await hub({ meta: { rateLimit: { limit: 200, windowMs: 1000 } } });
    expect(h.unit.meta).toEqual({ rateLimit: { limit: 200, windowMs: 1000 } });
    const plain = await hub();
    expect(plain.unit.meta).toBeUndefined();
    await closeAll(h.s, plain.s);
  });

  it('HOST-20: the push answer carries the vector keys the page touched, which the dialer merges into the vector hello gave it', async () => {
    const h = await hub();
    const other = await node();
    await other.insert({ other: true });
    const p = await node({ sync: { scope: (_id, d) => (d.$type as string) ?? '*' } });
    await p.insert({ g: 1 });
    await p.insert({ $type: 'Doc' });
    await p.insert({ $type: 'Doc' });
    const ctx = await greet(h.unit, other, ['*']);
    await push(h.unit, ctx, opsOf(other));
    const ctx2 = await greet(h.unit, p, ['*']);
    const answer = await push(h.unit, ctx2, opsOf(p));
    expect(answer.vector).toEqual({ [p.id]: 1, [`${p.id}@Doc`]: 2 });
    // A page sent again (its answer lost) answers the streams it holds: the dialer's copy of the vector moves by them.
    const dup = await push(h.unit, ctx2, opsOf(p).slice(0, 1));
    expect(dup).toMatchObject({ duplicates: 1, vector: { [p.id]: 1 } });

    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const syncs = record(d, 'sync');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.connected === true, [d]);
    await d.insert({ n: 1 });
    await waitFor(() => syncs.some((e) => e.pushed === 1), [d]);
    expect(dialerOf(d, URL).hv).toMatchObject({ [d.id]: 1, [other.id]: 1, [p.id]: 1, [`${p.id}@Doc`]: 2 });
    await closeAll(d, h.s, p, other);
  });

  it('SIG-20: a require host refuses a hello from a node id that is no key with 403 UNSIGNED', async () => {
    const h = await hub({}, { sync: { signatures: 'require' } });
    const p = await node();
    await expect(h.unit.call('hello', { ...helloOf(p), node: 'not-a-key', token: 't' }, {})).rejects.toMatchObject({ code: 'UNSIGNED', status: 403 });
    await expect(h.unit.call('hello', { ...helloOf(p), token: 't' }, {})).resolves.toMatchObject({ node: h.s.id });
    const lax = await hub();
    await expect(lax.unit.call('hello', { ...helloOf(p), node: 'not-a-key', token: 't' }, {})).resolves.toMatchObject({ node: lax.s.id });
    await closeAll(h.s, lax.s, p);
  });

  it('SIG-19 SIG-18 LIFE-10: the host announces refused pushed ops through refused with reason forged or unsigned, and logs none of them', async () => {
    const strict = await hub({}, { sync: { signatures: 'require' } });
    const lax = await hub();
    const p = await node();
    const u = await node({ sync: { signatures: false } });
    const good = craft(p, { type: 'write', id: 'r1', data: { n: 1 } }, '*', 1);
    const forged = { ...craft(p, { type: 'write', id: 'r2', data: { n: 2 } }, '*', 2), data: { n: 666 } };
    await u.insert({ unsigned: true });
    const events: SyncEvents['refused'][0][] = [];
    for (const h of [strict, lax]) h.s.sync.on('refused', (e) => events.push(e));
    const sctx = await greet(strict.unit, p, ['*']);
    expect(await push(strict.unit, sctx, [good, forged])).toMatchObject({ applied: 1, forged: 1 });
    const uctx = await greet(strict.unit, u, ['*']);
    expect(await push(strict.unit, uctx, opsOf(u))).toMatchObject({ applied: 0, unsigned: 1 });
    const lctx = await greet(lax.unit, u, ['*']);
    expect(await push(lax.unit, lctx, opsOf(u))).toMatchObject({ applied: 1, unsigned: 0 });
    expect(events).toEqual([{ node: p.id, reason: 'forged', count: 1 }, { node: u.id, reason: 'unsigned', count: 1 }]);
    expect(opsOf(strict.s).map((o) => o.id)).toEqual(['r1']);
    expect(internals(strict.s).log.vector[p.id]).toBe(1);
    await closeAll(strict.s, lax.s, p, u);
  });

  it('HOST-1 PROTO-3: one node hosts some peers while it dials others — both roles on one storage', async () => {
    const net = new Net();
    const top = await hub();
    net.units.set('memory://top', top.unit);
    const mid = await dialer(net);
    net.units.set('memory://mid', mid.sync.unit({ access: 'public' }));
    const leaf = await dialer(net);
    await mid.sync.addNode({ url: 'memory://top', token: 't' });
    await leaf.sync.addNode({ url: 'memory://mid' });
    const id = await top.s.insert({ from: 'top' });
    const back = await leaf.insert({ from: 'leaf' });
    await until(async () => (await leaf.has(id)) && (await top.s.has(back)), [top.s, mid, leaf]);
    expect(mid.sync.hosted().map((f) => f.node)).toEqual([leaf.id]);
    expect(mid.sync.peers().map((p) => p.node)).toEqual([top.s.id]);
    await closeAll(leaf, mid, top.s);
  });
});

describe('hosting: live feeds', () => {
  it('LOG-15 LIFE-5: a live feed that falls below the floor while behind tells the subscriber to bootstrap and leaves hosted()', async () => {
    const h = await hub({ pageSize: 10 }, { sync: { log: { rollAfter: 1 }, retention: { ops: 1000 } } });
    const p = await node();
    await h.s.insert({ first: true });
    const ctx = await greet(h.unit, p);
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const pages: unknown[] = [];
    let told = () => undefined as void;
    const bootstrap = new Promise<void>((resolve) => { told = resolve; });
    h.unit.subscribe('changes', {}, ctx, {
      lastEventId: internals(h.s).log.eventId(0),
      // A subscriber that acks nothing: the feed stops once its send window is full.
      onData: (value) => {
        pages.push(value);
        if ((value as { bootstrap?: boolean }).bootstrap) told();
        return held;
      },
    });
    await waitFor(() => pages.length === 1, [h.s]);
    // Past the 16 pages of 10 ops the window let out: the feed stopped at 151, retention passes it.
    for (let i = 0; i < 15; i++) await Promise.all(Array.from({ length: 100 }, (_, j) => h.s.insert({ i, j })));
    expect(pages).toHaveLength(16);
    expect(internals(h.s).log.floor).toBeGreaterThan(151);
    expect(h.s.sync.hosted()).toHaveLength(1);
    release();
    await bootstrap;
    expect(pages.at(-1)).toEqual({ bootstrap: true, reason: 'floor' });
    expect(h.s.sync.hosted()).toEqual([]);
    await closeAll(h.s, p);
  });

  it('PROTO-6: a feed whose subscriber rejects a page ends quietly (no unhandled rejection) and leaves hosted()', async () => {
    const h = await hub();
    const p = await node();
    const ctx = await greet(h.unit, p);
    const errors: unknown[] = [];
    // The feed handles the rejection in microtasks: a macrotask queued by the page comes after it (no storage event tells).
    let rejected!: () => void;
    const handled = new Promise<void>((resolve) => (rejected = resolve));
    h.unit.subscribe('changes', {}, ctx, {
      lastEventId: internals(h.s).log.eventId(0),
      onData: () => {
        setImmediate(rejected);
        return Promise.reject(new Error('the socket is gone'));
      },
      onError: (e) => void errors.push(e),
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    await h.s.insert({ n: 1 });
    await handled;
    expect(h.s.sync.hosted()).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
    await closeAll(h.s, p);
  });
});

import { internals } from '../../src/testing/internals';
import { createMemoryBackend, SyncomError } from '../../src';
import { closeAll, dialer, hub, Net, node, until } from './helpers';
import { gate, record, waitFor, WatchedNet, wrapUnit } from './scenario-helpers';

const URL = 'memory://hub';

/** A hub at URL on a net, and a dialer registered with it. */
async function pair(net: Net = new Net(), dialOptions: Parameters<typeof dialer>[1] = {}) {
  const h = await hub();
  net.units.set(URL, h.unit);
  const d = await dialer(net, dialOptions);
  return { net, h, d };
}

describe('lifecycle and events', () => {
  it('LIFE-1 LIFE-11 OPT-1 OPT-2: with connect, open() dials every enabled node (autoStart) and emits start; disabled nodes are not dialed', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    net.units.set('memory://off', h.unit);
    const first = await dialer(net);
    await first.sync.addNode({ url: URL, token: 't' });
    await first.sync.addNode({ url: 'memory://off', token: 't' });
    await first.sync.enableNode('memory://off', false);
    await first.close();
    const links = net.links.length;
    const again = await node({ path: internals(first).options.path, backend: internals(first).backend, sync: { connect: net.connect } });
    expect(net.links.length).toBe(links + 1);
    expect(again.sync.peers().map((p) => p.url)).toEqual([URL]);
    await waitFor(() => again.sync.peers()[0].connected, [again]);
    const none = await node({ path: 'no-connect', sync: {} });
    const starts = record(none, 'start');
    await none.sync.addNode({ url: URL, token: 't' });
    await none.sync.start();
    expect(starts).toHaveLength(1);
    expect(none.sync.peers()).toEqual([]);
    expect(net.links.length).toBe(links + 1);
    await closeAll(again, none, h.s);
  });

  it('OPT-3 LIFE-11: autoStart false leaves dialing to start(); start emits start once, stop emits stop', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, autoStart: false } });
    const starts = record(d, 'start');
    const stops = record(d, 'stop');
    await d.sync.addNode({ url: URL, token: 't' });
    expect(net.links).toHaveLength(0);
    expect(d.sync.peers()).toEqual([]);
    await d.sync.start();
    await d.sync.start();
    expect(net.links).toHaveLength(1);
    expect(starts).toHaveLength(1);
    await waitFor(() => d.sync.peers()[0]?.connected === true, [d]);
    await d.sync.stop();
    await d.sync.stop();
    expect(stops).toHaveLength(1);
    await closeAll(d, h.s);
  });

  it('LIFE-2 LIFE-5: stop() closes every link, so the host has no live feed left; hosted() lists { node, scopes, since, cursor } per live feed', async () => {
    const net = new Net();
    const a = await hub();
    const b = await hub();
    net.units.set('memory://a', a.unit);
    net.units.set('memory://b', b.unit);
    const d = await dialer(net);
    await d.sync.addNode({ url: 'memory://a', token: 't' });
    await d.sync.addNode({ url: 'memory://b', token: 't', scopes: ['Doc'] });
    await waitFor(() => a.s.sync.hosted().length === 1 && b.s.sync.hosted().length === 1, [d, a.s, b.s]);
    const before = Date.now();
    const hosted = b.s.sync.hosted();
    expect(hosted).toEqual([{ node: d.id, scopes: ['Doc'], since: expect.any(Number), cursor: expect.stringMatching(/^[\w-]+\.\d+$/) }]);
    expect(hosted[0].since).toBeLessThanOrEqual(before);
    expect(Object.keys(hosted[0]).sort()).toEqual(['cursor', 'node', 'scopes', 'since']);
    await b.s.insert({ n: 1 });
    await waitFor(() => b.s.sync.hosted()[0].cursor === internals(b.s).log.eventId(), [d, b.s]);
    await d.sync.stop();
    expect(net.links.every((l) => !l.connected)).toBe(true);
    expect(a.s.sync.hosted()).toEqual([]);
    expect(b.s.sync.hosted()).toEqual([]);
    expect(d.sync.peers()).toEqual([]);
    await closeAll(d, a.s, b.s);
  });

  it('LIFE-3: sync() pushes what the peer lacks right now', async () => {
    const net = new Net();
    const h = await hub();
    let swallow = true;
    net.units.set(URL, wrapUnit(h.unit, async (method, args, ctx, next) => (method === 'push' && swallow ? { applied: 0, vector: {} } : next())));
    const d = await dialer(net);
    const syncs = record(d, 'sync');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.connected === true, [d]);
    const ids = [await d.insert({ n: 1 }), await d.insert({ n: 2 })];
    await waitFor(() => syncs.filter((e) => e.pushed > 0).length >= 2, [d]);
    expect(await h.s.has(ids[0])).toBe(false);
    swallow = false;
    await d.sync.sync();
    expect(await h.s.has(ids[0])).toBe(true);
    expect(await h.s.has(ids[1])).toBe(true);
    expect(syncs.at(-1)).toMatchObject({ url: URL, pushed: 2, applied: 2 });
    await closeAll(d, h.s);
  });

  it('LIFE-4: peers() is [{ url, node, connected, subscribed, cursor, lastSync, pending, behind, stuck, lastError }] (plus bootstrapping, incoming and incompatible)', async () => {
    const { h, d } = await pair();
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    await h.s.insert({ n: 1 });
    await waitFor(() => d.sync.peers()[0]?.cursor === internals(h.s).log.eventId(), [d]);
    const [p] = d.sync.peers();
    expect(Object.keys(p).sort()).toEqual(['behind', 'bootstrapping', 'connected', 'cursor', 'incoming', 'incompatible', 'lastError', 'lastSync', 'node', 'pending', 'stuck', 'subscribed', 'url']);
    expect(p).toEqual({
      url: URL, node: h.s.id, connected: true, subscribed: true, cursor: internals(h.s).log.eventId(), lastSync: expect.any(Number),
      pending: 0, behind: false, stuck: false, lastError: null, bootstrapping: false, incoming: 0, incompatible: false,
    });
    await closeAll(d, h.s);
  });

  it('LIFE-6 LIFE-13: connect fires once the link is there, before hello; peer fires connected after hello and disconnected when the link closes', async () => {
    const net = new Net();
    const h = await hub();
    const unit = wrapUnit(h.unit);
    net.units.set(URL, unit);
    const d = await dialer(net);
    const order: string[] = [];
    d.sync.on('connect', (e) => order.push(`connect ${e.url} hellos=${unit.methods.filter((m) => m === 'hello').length}`));
    const peers = record(d, 'peer');
    d.sync.on('peer', (e) => order.push(`peer ${e.connected}`));
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => peers.length === 1, [d]);
    expect(order).toEqual([`connect ${URL} hellos=0`, 'peer true']);
    expect(peers[0]).toEqual({ url: URL, connected: true, node: h.s.id, reconnected: false, schema: null });
    net.links[0].cut();
    expect(peers[1]).toMatchObject({ url: URL, connected: false, node: h.s.id });
    expect(d.sync.peers()[0].connected).toBe(false);
    net.links[0].restore();
    await waitFor(() => peers.length === 3, [d]);
    expect(peers[2]).toMatchObject({ url: URL, connected: true, node: h.s.id, reconnected: true });
    expect(order.filter((o) => o.startsWith('connect'))).toHaveLength(1);
    await closeAll(d, h.s);
  });

  it('LIFE-7: sync fires per answered push (pushed) and per applied changes page (received), with the counts', async () => {
    const { h, d } = await pair();
    const syncs = record(d, 'sync');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    await d.insert({ from: 'd' });
    await waitFor(() => syncs.some((e) => e.pushed === 1), [d]);
    expect(syncs.find((e) => e.pushed === 1)).toEqual({
      url: URL, pushed: 1, received: 0, applied: 1, skipped: 0, duplicates: 0, gaps: 0, malformed: 0, unsigned: 0, forged: 0,
    });
    const id = await h.s.insert({ from: 'h' });
    await until(() => d.has(id), [d]);
    await waitFor(() => syncs.some((e) => e.received === 1), [d]);
    expect(syncs.find((e) => e.received === 1)).toEqual({
      url: URL, pushed: 0, received: 1, applied: 1, skipped: 0, duplicates: 0, gaps: 0, malformed: 0, unsigned: 0, forged: 0,
    });
    await closeAll(d, h.s);
  });

  it('LIFE-8: bootstrap { url, records } fires when a bootstrap completes', async () => {
    const { h, d } = await pair();
    for (let i = 0; i < 3; i++) await h.s.insert({ i });
    await h.s.delete(await h.s.insert({ gone: true }));
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    expect(boots).toEqual([{ url: URL, records: 4 }]);
    expect((await d.list()).length).toBe(3);
    await closeAll(d, h.s);
  });

  it('LIFE-14 SCOPE-26: the host emits hello { node, scopes, schema } when a peer was authorized, not when it was refused', async () => {
    const net = new Net();
    const h = await hub({ authorize: (_c, hello) => hello.token === 't' && !hello.scopes.includes('Secret') });
    net.units.set(URL, h.unit);
    const hellos = record(h.s, 'hello');
    const d = await dialer(net);
    await d.sync.addNode({ url: URL, token: 't', scopes: ['Doc'] });
    await waitFor(() => hellos.length === 1, [h.s]);
    expect(hellos[0]).toEqual({ node: d.id, scopes: ['Doc'], schema: null });
    const e = await dialer(net);
    const errors = record(e, 'error');
    await e.sync.addNode({ url: URL, token: 't', scopes: ['Secret'] });
    await waitFor(() => errors.length === 1, [e]);
    expect(errors[0]).toMatchObject({ code: 'UNAUTHORIZED', status: 401, url: URL });
    expect(hellos).toHaveLength(1);
    expect(e.sync.peers()[0]).toMatchObject({ connected: false, lastError: errors[0] });
    await closeAll(d, e, h.s);
  });

  it('LIFE-24 LIFE-25: close() stops sync (stop event, links closed, no feed left at the host) and refuses later writes with CLOSED', async () => {
    const { net, h, d } = await pair();
    const stops = record(d, 'stop');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => h.s.sync.hosted().length === 1, [d, h.s]);
    await d.close();
    expect(stops).toHaveLength(1);
    expect(net.links[0].connected).toBe(false);
    expect(h.s.sync.hosted()).toEqual([]);
    await expect(d.insert({ late: true })).rejects.toMatchObject({ code: 'CLOSED' });
    await closeAll(h.s);
  });

  it('PROTO-12 PROTO-13: after a cut and restore only hello and push repeat; the link resumes the subscription from its last event id', async () => {
    const net = new WatchedNet();
    const h = await hub();
    const unit = wrapUnit(h.unit);
    net.units.set(URL, unit);
    const d = await dialer(net);
    const peers = record(d, 'peer');
    await d.sync.addNode({ url: URL, token: 't' });
    await h.s.insert({ before: true });
    await waitFor(() => d.sync.peers()[0]?.cursor === internals(h.s).log.eventId(), [d]);
    const link = net.links[0];
    const w = net.watches[0];
    const calls = [...w.calls];
    const subscribes = [...w.subscribes];
    const stats = link.stats();
    const methods = unit.methods.length;
    link.cut();
    const mine = await d.insert({ offline: 'dialer' });
    const theirs = await h.s.insert({ offline: 'hub' });
    const at = internals(h.s).log.eventId();
    link.restore();
    await until(async () => (await h.s.has(mine)) && (await d.has(theirs)), [d, h.s]);
    await waitFor(() => peers.filter((p) => p.connected).length === 2, [d]);
    expect(w.subscribes).toEqual(subscribes);
    expect(w.calls.slice(calls.length).filter((m) => m !== 'push')).toEqual(['hello']);
    // At the host: the link's own resume of the feed (refused 428 until hello landed, then reopened), and one hello.
    expect(unit.methods.slice(methods).filter((m) => m !== 'push' && m !== 'changes')).toEqual(['hello']);
    const after = link.stats();
    expect(after.calls - stats.calls).toBe(w.calls.length - calls.length);
    expect(link.connections).toBe(2);
    expect(d.sync.peers()[0].subscribed).toBe(true);
    await waitFor(() => d.sync.peers()[0].cursor === at, [d]);
    await closeAll(d, h.s);
  });

  it('LIFE-21: pushes to one peer never overlap — relays, sync() and recoveries take turns', async () => {
    const net = new WatchedNet();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, pageSize: 3 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.connected === true, [d]);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      writes.push(d.insert({ i }));
      if (i % 7 === 0) writes.push(d.sync.sync());
    }
    await Promise.all(writes);
    await d.sync.sync();
    expect((await h.s.list()).length).toBe(40);
    expect(net.watches[0].calls.filter((m) => m === 'push').length).toBeGreaterThan(3);
    expect(net.watches[0].maxPushes).toBe(1);
    await closeAll(d, h.s);
  });

  it('LIFE-21 LOG-17: commits made while a push is out go in the next push, and the registry is saved once per push, not once per commit', async () => {
    const held = gate();
    let pushes = 0;
    // Awaited, not polled on the dialer's events: the push reaches the host a few microtasks after the last of them.
    let firstPush!: () => void;
    const pushed = new Promise<void>((resolve) => (firstPush = resolve));
    const h = await hub();
    const net = new Net();
    net.units.set(URL, wrapUnit(h.unit, async (method, _args, _ctx, next) => {
      if (method === 'push' && pushes++ === 0) {
        firstPush();
        await held.wait;
      }
      return next();
    }));
    const backend = createMemoryBackend();
    let saves = 0;
    const counted = { ...backend, write: (path: string, data: string, o?: { durable?: boolean }) => ((saves += path.startsWith('remote/') ? 1 : 0), backend.write(path, data, o)) };
    const d = await dialer(net, { backend: counted });
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.connected === true, [d]);
    await d.insert({ first: true });
    await pushed;
    expect(pushes).toBe(1);
    const before = saves;
    // Fifty commits while the first push waits: each relays, and the turn after the push takes them all.
    for (let i = 0; i < 50; i++) await d.insert({ i });
    held.open();
    await d.sync.sync();
    expect((await h.s.list()).length).toBe(51);
    expect(pushes).toBeLessThanOrEqual(4);
    expect(saves - before).toBeLessThanOrEqual(pushes + 1);
    // The one save after the push holds the position acked by it (LOG-17).
    expect(d.sync.listNodes()[0].acked[d.id]).toBe(51);
    await d.sync.stop();
    const file = (await backend.list('remote'))[0];
    expect(JSON.parse((await backend.read(`remote/${file}`)) as string).acked[d.id]).toBe(51);
    await closeAll(d, h.s);
  });

  it('HOST-21: a push the host answers 428 (it forgot the session) makes the dialer greet again, and the push lands', async () => {
    const net = new Net();
    const h = await hub();
    let forget = false;
    const unit = wrapUnit(h.unit, async (method, args, ctx, next) => {
      if (method === 'push' && forget) {
        forget = false;
        h.unit.disconnect(ctx);
        throw new SyncomError('HELLO_REQUIRED', 'greet again', { status: 428 });
      }
      return next();
    });
    net.units.set(URL, unit);
    const d = await dialer(net);
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.connected === true, [d]);
    const hellos = unit.methods.filter((m) => m === 'hello').length;
    forget = true;
    const id = await d.insert({ n: 1 });
    await until(() => h.s.has(id), [d, h.s]);
    expect(unit.methods.filter((m) => m === 'hello').length).toBe(hellos + 1);
    expect(errors).toEqual([]);
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, behind: false, lastError: null });
    await closeAll(d, h.s);
  });

  it('LIFE-22 LIFE-9: a host answering 428 to five fresh hellos in a row is reported once as HANDSHAKE_LOOP and not greeted again until the link reconnects', async () => {
    const net = new Net();
    const h = await hub();
    let refuse = true;
    const unit = wrapUnit(h.unit, async (method, _args, _ctx, next) => {
      if (method === 'push' && refuse) throw new SyncomError('HELLO_REQUIRED', 'greet again', { status: 428 });
      return next();
    });
    net.units.set(URL, unit);
    const d = await dialer(net, { sync: { connect: net.connect, autoStart: false } });
    const id = await d.insert({ n: 1 });
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.start();
    await waitFor(() => errors.length > 0, [d]);
    await net.links[0].settle();
    expect(errors.map((e) => e.code)).toEqual(['HANDSHAKE_LOOP']);
    expect(errors[0]).toMatchObject({ url: URL, status: 428 });
    expect(unit.methods.filter((m) => m === 'hello')).toHaveLength(5);
    expect(unit.methods.filter((m) => m === 'push')).toHaveLength(5);
    await d.insert({ n: 2 });
    await d.sync.sync();
    await net.links[0].settle();
    expect(unit.methods.filter((m) => m === 'hello')).toHaveLength(5);
    expect(errors).toHaveLength(1);
    refuse = false;
    net.links[0].cut();
    net.links[0].restore();
    await until(() => h.s.has(id), [d, h.s]);
    expect(unit.methods.filter((m) => m === 'hello')).toHaveLength(6);
    await closeAll(d, h.s);
  });

  it('LIFE-20: a sync listener that throws is contained and never fails what it observed', async () => {
    const { h, d } = await pair();
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    d.sync.on('peer', () => { throw new Error('listener bug'); });
    d.sync.on('sync', () => { throw new Error('listener bug'); });
    await d.sync.addNode({ url: URL, token: 't' });
    const id = await d.insert({ n: 1 });
    await until(() => h.s.has(id), [d, h.s]);
    spy.mockRestore();
    await closeAll(d, h.s);
  });

  it('LIFE-13: no connect event when beforeConnect declines the node', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const asked = gate();
    const d = await dialer(net, { sync: { connect: net.connect, hooks: { beforeConnect: () => { asked.open(); return false; } } } });
    const connects = record(d, 'connect');
    await d.sync.addNode({ url: URL, token: 't' });
    await asked.wait;
    await Promise.resolve();
    expect(connects).toEqual([]);
    expect(net.links).toHaveLength(0);
    await closeAll(d, h.s);
  });
});

import { createMemoryLink, open, type Storage, type SyncomError } from '../../src';
import { applyPeerOps } from '../../src/storage';
import { closeAll, dialer, hostAndDialer, hub, Net, node, seeded, until } from '../sync/helpers';

const URL = 'memory://hub';

/** A storage on a backend kept, so the test can reopen its directory after close(). */
async function reopenable(path: string) {
  const backend = await seeded();
  const reopen = () => open({ path, backend });
  return { s: await reopen(), reopen };
}

/** The code a promise rejects with, or 'ok'. */
function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(() => 'ok', (e: SyncomError) => e.code);
}

/** The code a synchronous call throws, or 'ok'. */
function thrown(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as SyncomError).code;
  }
}

describe('close() and sync: nothing is served, dialed or written once close() was called', () => {
  it('LIFE-24 REG-4: an app\'s link whose push never answers does not hold removeNode() or close(): the call ends (LINK_DOWN) when the link is closed, and the path opens again', async () => {
    const h = await hub();
    const backend = await seeded();
    const connect = () => {
      const link = createMemoryLink(h.unit);
      return new Proxy(link, { get: (t, k) => (k === 'call' ? (m: string, a: unknown) => (m === 'push' ? new Promise(() => undefined) : t.call(m, a)) : Reflect.get(t, k)) });
    };
    const d = await open({ path: 'never-answers', backend, sync: { connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.connected === true, [d]);
    await d.insert({ waits: 'for a push that never answers' });
    await d.sync.removeNode(URL);
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.connected === true, [d]);
    await d.insert({ again: true });
    await d.close();
    const again = await open({ path: 'never-answers', backend });
    expect((await again.list()).length).toBe(2);
    await closeAll(again, h.s);
  });

  it('LIFE-24: an app\'s link whose close() throws does not stop close(): the queued writes land before the lock goes, the throw is reported (SYNC_FAILED), and a reopen holds every write', async () => {
    const h = await hub();
    const path = 'throwing-link';
    const backend = await seeded();
    const connect = () => {
      const link = createMemoryLink(h.unit);
      return new Proxy(link, { get: (t, k) => (k === 'close' ? () => { t.close(); throw new Error('the app link broke'); } : Reflect.get(t, k)) });
    };
    const d = await open({ path, backend, sync: { connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => d.sync.peers()[0]?.connected === true, [d]);
    const writes = Array.from({ length: 300 }, (_, i) => d.insert({ i }));
    await expect(d.close()).resolves.toBeUndefined();
    const ids = await Promise.all(writes);
    expect(errors.map((e) => e.code)).toContain('SYNC_FAILED');
    const again = await open({ path, backend });
    expect(again.startupErrors).toEqual([]);
    expect((await Promise.all(ids.map((id) => again.has(id)))).every(Boolean)).toBe(true);
    await closeAll(again, h.s);
  });

  it('LIFE-24 LIFE-25: close() ends the units sync.unit() made: a connected dialer is answered CLOSED, and nothing it sends reaches the closed store or its directory', async () => {
    const h = await reopenable('hub');
    const unit = h.s.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' });
    const net = new Net();
    net.units.set(URL, unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    const a = await d.insert({ n: 'a' });
    await d.sync.synced(URL, { timeout: 10_000 });
    expect(h.s.sync.hosted()).toHaveLength(1);
    const head = h.s.replica.head;

    await h.s.close();
    expect(h.s.sync.hosted()).toEqual([]);
    expect(unit.usage()).toMatchObject({ feeds: 0, pagings: 0, streams: 0 });
    // The dialer's feed ended with CLOSED: the host is gone for good, not a link to wait for.
    await until(() => errors.some((e) => e.code === 'CLOSED'), [d]);
    const b = await d.insert({ n: 'b' });
    await d.sync.sync();
    expect(h.s.replica.head).toBe(head);
    expect(await h.s.get(b)).toBeUndefined();

    const reopened = await h.reopen();
    const openErrors: SyncomError[] = [];
    reopened.on('error', (e) => openErrors.push(e));
    expect(await reopened.get(a)).toEqual({ n: 'a' });
    expect(await reopened.get(b)).toBeUndefined();
    expect(reopened.replica.head).toBe(head);
    expect(openErrors).toEqual([]);
    await closeAll(d, reopened);
  });

  it('HOST-1 LIFE-24: a closed storage\'s unit answers every call, subscription and stream CLOSED, and sync.unit() after close() throws CLOSED', async () => {
    const { s, unit } = await hub();
    await s.close();
    const context = { session: true };
    for (const method of ['hello', 'push', 'snapshot', 'reconcile', 'records']) {
      expect([method, await outcome(unit.call(method, {}, context))]).toEqual([method, 'CLOSED']);
    }
    const subscribed = await new Promise<string>((resolve) => {
      unit.subscribe('changes', {}, context, { onData: () => resolve('data'), onError: (e) => resolve((e as SyncomError).code) });
    });
    expect(subscribed).toBe('CLOSED');
    const read = async () => { for await (const _ of unit.stream('any', context)) return; };
    expect(await outcome(read())).toBe('CLOSED');
    expect(thrown(() => s.sync.unit())).toBe('CLOSED');
  });

  it('LIFE-25: once close() was called the pipeline takes no peer op after the sync roles ended: a page during close() is committed and on disk, or refused CLOSED; after close() it is refused and the log stays', async () => {
    const peer = await node();
    await peer.set('p1', { n: 1 });
    await peer.set('p2', { n: 2 });
    const ops = peer.replica.read(0).map((e) => e.op);
    const via = { url: 'memory://peer', node: peer.id };
    const h = await reopenable('store');
    await h.s.set('own', { n: 0 });

    const closing = h.s.close();
    const during = outcome(applyPeerOps(h.s, ops.slice(0, 1), { via }));
    await closing;
    const head = h.s.replica.head;
    // The whole page again: an op committed during close() is a duplicate, the next one would be appended.
    expect(await outcome(applyPeerOps(h.s, ops, { via }))).toBe('CLOSED');
    expect(h.s.replica.head).toBe(head);

    const reopened = await h.reopen();
    expect(['ok', 'CLOSED']).toContain(await during);
    expect(await reopened.has('p1')).toBe((await during) === 'ok');
    expect(await reopened.has('p2')).toBe(false);
    expect(await reopened.get('own')).toEqual({ n: 0 });
    await closeAll(peer, reopened);
  });

  it('REG-1 REG-3 REG-4 LIFE-1 LIFE-3: after close() every sync call that could dial or write refuses CLOSED: nothing is dialed or registered', async () => {
    const { net, h } = await hostAndDialer(URL);
    const backend = await seeded();
    const d = await open({ path: 'dialer', backend, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 10_000 });
    await d.close();
    const links = net.links.length;

    const calls: Record<string, () => Promise<unknown>> = {
      addNode: () => d.sync.addNode({ url: 'memory://other', token: 't' }),
      enableNode: () => d.sync.enableNode(URL, false),
      removeNode: () => d.sync.removeNode(URL),
      start: () => d.sync.start(),
      sync: () => d.sync.sync(),
      forceSync: () => d.sync.forceSync(),
      synced: () => d.sync.synced(URL),
    };
    const answers: Record<string, string> = {};
    for (const [name, call] of Object.entries(calls)) answers[name] = await outcome(call());
    expect(answers).toEqual(Object.fromEntries(Object.keys(calls).map((k) => [k, 'CLOSED'])));
    expect(thrown(() => d.sync.unit())).toBe('CLOSED');
    expect(net.links).toHaveLength(links);
    expect(d.sync.peers()).toEqual([]);
    // stop() of a closed storage has nothing to stop.
    await d.sync.stop();

    const reopened = await open({ path: 'dialer', backend, sync: { connect: net.connect, antiEntropyInterval: 0, autoStart: false } });
    expect(reopened.sync.listNodes().map((r) => [r.url, r.enabled])).toEqual([[URL, true]]);
    await closeAll(reopened, h.s);
  });

  it('LIFE-1 LIFE-2: stop() then start() without awaiting the stop dials again once the stop is done: \'stop\' comes before \'start\', and synced() resolves', async () => {
    const { net, h, d } = await hostAndDialer(URL);
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.synced(URL, { timeout: 10_000 });
    const events: string[] = [];
    d.sync.on('start', () => events.push('start'));
    d.sync.on('stop', () => events.push('stop'));

    const stopped = d.sync.stop();
    await d.sync.start();
    await stopped;
    expect(events).toEqual(['stop', 'start']);
    expect(net.links).toHaveLength(2);
    expect(net.links[0].connected).toBe(false);
    expect(d.sync.peers()).toHaveLength(1);
    const id = await d.insert({ after: 'restart' });
    await d.sync.synced(URL, { timeout: 10_000 });
    await until(() => h.s.has(id), [h.s]);

    // The other order ends stopped: the last call wins.
    const started = d.sync.start();
    await d.sync.stop();
    await started;
    expect(d.sync.peers()).toEqual([]);
    expect(net.links.every((l) => !l.connected)).toBe(true);
    await closeAll(d, h.s);
  });

  it('LIFE-24: every close() returns the first one\'s promise: a second, concurrent close() resolves once the lock is released, so the path reopens at once with every write', async () => {
    const h = await reopenable('twice');
    const writes = Array.from({ length: 200 }, (_, i) => h.s.set(`x${i}`, { i }));
    const first = h.s.close();
    const second = h.s.close();
    expect(second).toBe(first);
    await second;
    let reopened: Storage | undefined;
    expect(await outcome(h.reopen().then((s) => (reopened = s)))).toBe('ok');
    await Promise.all(writes);
    for (let i = 0; i < 200; i++) expect(await reopened?.get(`x${i}`)).toEqual({ i });
    expect(h.s.close()).toBe(first);
    await closeAll(reopened as Storage);
  });
});

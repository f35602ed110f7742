import type { SyncomError } from '../../src';
import { SyncomError as Err } from '../../src/errors';
import type { HostUnit } from '../../src/link';
import { closeAll, dialer, hub, Net, until, within } from './helpers';

const URL = 'memory://h';

describe('a beforeBootstrap hook that never answers', () => {
  it('OPT-14 REG-3 LIFE-2: does not hold the dialer\'s stop: disabling the node, and the storage\'s close(), end', async () => {
    const h = await hub();
    await h.s.insert({ i: 1 });
    const net = new Net();
    net.units.set(URL, h.unit);
    let asked!: () => void;
    const hooked = new Promise<void>((resolve) => (asked = resolve));
    const beforeBootstrap = () => { asked(); return new Promise<boolean>(() => undefined); };
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeBootstrap } } });
    await d.sync.addNode({ url: URL, token: 't' });
    await hooked;
    await within(d.sync.enableNode(URL, false), 2000, 'enableNode(url, false)');
    await within(d.close(), 2000, 'close()');
    await closeAll(h.s);
  });
});

describe('a beforeBootstrap hook that declines', () => {
  it('OPT-14 LIFE-4: peers() does not show the feed subscribed, and the next reconnect asks the hook again', async () => {
    const h = await hub();
    await h.s.insert({ i: 1 });
    const net = new Net();
    net.units.set(URL, h.unit);
    let asked = 0;
    let answered!: () => void;
    let declined = new Promise<void>((resolve) => (answered = resolve));
    const beforeBootstrap = async () => {
      asked++;
      queueMicrotask(answered);
      return asked > 1;
    };
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeBootstrap } } });
    await d.sync.addNode({ url: URL, token: 't' });
    await declined;
    await net.links[0].settle();
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: false });
    const booted = new Promise<number>((resolve) => d.sync.on('bootstrap', (e) => resolve(e.records)));
    net.links[0].cut();
    net.links[0].restore();
    expect(await within(booted, 5000, 'a bootstrap after the reconnect')).toBe(1);
    expect(asked).toBe(2);
    await closeAll(d, h.s);
  });
});

describe('a changes subscription the host refuses for now, on a link that stays up', () => {
  it('PROTO-12 HOST-17: refused 500 (the host failed to handle it), it is opened again backed off (nothing else would: the link never reconnects), and the two nodes sync', async () => {
    const h = await hub();
    const theirs = await h.s.insert({ from: 'h' });
    let refusals = 1;
    const busy: HostUnit = {
      access: h.unit.access,
      call: (m, a, c) => h.unit.call(m, a, c),
      subscribe: (m, a, c, o) => {
        if (refusals-- > 0) {
          queueMicrotask(() => o.onError?.(new Err('INTERNAL', 'the host failed', { status: 500 })));
          return { unsubscribe() {} };
        }
        return h.unit.subscribe(m, a, c, o);
      },
      stream: (id, c) => h.unit.stream(id, c),
      disconnect: (c) => h.unit.disconnect(c),
    };
    const net = new Net();
    net.units.set(URL, busy);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await within(d.sync.synced(URL), 5000, 'synced()');
    expect(await d.has(theirs)).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(['INTERNAL']);
    expect(net.links).toHaveLength(1);
    await closeAll(d, h.s);
  });
});

describe('enableNode(url, true) then enableNode(url, false) at once', () => {
  it('REG-3: the node ends disabled, and nothing dials it', async () => {
    const h = await hub();
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await within(d.sync.synced(URL), 5000, 'synced()');
    await Promise.all([d.sync.enableNode(URL, true), d.sync.enableNode(URL, false)]);
    expect(d.sync.listNodes()[0].enabled).toBe(false);
    expect(d.sync.peers()).toEqual([]);
    await closeAll(d, h.s);
  });
});

describe('an app\'s link whose subscribe() throws', () => {
  it('LINK-8 LIFE-4: the throw is reported (SYNC_FAILED), never escapes a timer as an uncaught exception, and peers() does not read subscribed', async () => {
    const h = await hub();
    await h.s.insert({ i: 1 });
    const net = new Net();
    net.units.set(URL, h.unit);
    let subscribes = 0;
    const connect = (n: { url: string }) => {
      const link = net.connect(n);
      const inner = link.subscribe.bind(link);
      link.subscribe = (m, a, o) => {
        if (++subscribes === 2) throw new Error('the socket is gone');
        return inner(m, a, o);
      };
      return link;
    };
    // The first bootstrap fails (the hook throws): the feed is opened again from a timer, where the throw lands.
    let asked = 0;
    const beforeBootstrap = () => { if (++asked === 1) throw new Error('policy store down'); return true; };
    const d = await dialer(net, { sync: { connect, antiEntropyInterval: 0, hooks: { beforeBootstrap } } });
    const thrown = new Promise<SyncomError>((resolve) => d.sync.on('error', (e) => /socket is gone/.test(e.message) && resolve(e)));
    await d.sync.addNode({ url: URL, token: 't' });
    expect(await within(thrown, 5000, 'the subscribe() throw reported')).toMatchObject({ code: 'SYNC_FAILED', url: URL });
    expect(d.sync.peers()[0]).toMatchObject({ subscribed: false });
    await closeAll(d, h.s);
  });
});

/** `unit` with its calls made through `call` (which may hand them on to it); the rest as it is. */
function withCalls(unit: HostUnit, call: HostUnit['call']): HostUnit {
  return {
    access: unit.access, call,
    subscribe: (m, a, c, o) => unit.subscribe(m, a, c, o),
    stream: (id, c) => unit.stream(id, c),
    disconnect: (c) => unit.disconnect(c),
  };
}

describe('a changes feed the host ends with 428 (its session ended) while a push is out', () => {
  it('LIFE-21 HOST-21: the fresh hello and its push take their turn on the push chain: pushes to the host never overlap', async () => {
    const h = await hub();
    const held: (() => void)[] = [];
    let hold = false;
    let out = 0;
    let most = 0;
    let context: object | undefined;
    const gated = withCalls(h.unit, async (m, a, c) => {
      context = c;
      if (m !== 'push') return h.unit.call(m, a, c);
      most = Math.max(most, ++out);
      try {
        if (hold) await new Promise<void>((resolve) => held.push(resolve));
        return await h.unit.call(m, a, c);
      } finally {
        out--;
      }
    });
    const net = new Net();
    net.units.set(URL, gated);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await within(d.sync.synced(URL), 5000, 'synced()');
    hold = true;
    const mine = await d.insert({ from: 'd' });
    await new Promise<void>((resolve) => { const wait = () => (held.length > 0 ? resolve() : setImmediate(wait)); wait(); });
    // The host ends the session while that push is out: the feed is told 428 and the dialer greets again.
    let greeted = 0;
    d.sync.on('peer', (e) => void (e.connected && greeted++));
    h.unit.endSession(context as object);
    // What the 428 leads to runs now (in process: a few turns of the event loop), the first push still out.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    hold = false;
    for (const release of held.splice(0)) release();
    await within(d.sync.synced(URL), 5000, 'synced()');
    expect(await h.s.has(mine)).toBe(true);
    expect(most).toBe(1);
    expect(greeted).toBeGreaterThan(0);
    await closeAll(d, h.s);
  });
});

describe('a host that ends a quiet dialer\'s session again and again, serving it in between', () => {
  it('LIFE-22: each page served breaks the run of 428s: six such ends are no HANDSHAKE_LOOP, and the dialer takes every op after each', async () => {
    // Only an answered push started the count over, and a dialer that writes nothing pushes nothing: the fifth
    // end on one connection was reported HANDSHAKE_LOOP, and the dialer greeted no more until a reconnect.
    const h = await hub();
    let context: object | undefined;
    const watched = withCalls(h.unit, (m, a, c) => {
      context = c;
      return h.unit.call(m, a, c);
    });
    const net = new Net();
    net.units.set(URL, watched);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors: string[] = [];
    d.sync.on('error', (e) => errors.push(e.code));
    await d.sync.addNode({ url: URL, token: 't' });
    await within(d.sync.synced(URL), 5000, 'synced()');
    for (let i = 0; i < 6; i++) {
      h.unit.endSession(context as object);
      const id = await h.s.insert({ i });
      await until(() => d.has(id), [d]);
    }
    expect(errors).not.toContain('HANDSHAKE_LOOP');
    expect(net.links).toHaveLength(1);
    await closeAll(d, h.s);
  });
});

describe('a connect(node) that fails (the host is down as the node starts)', () => {
  it('OPT-13 LIFE-1: is reported and dialed again backed off, not left undialed until a restart or enableNode()', async () => {
    const h = await hub();
    const theirs = await h.s.insert({ from: 'h' });
    const net = new Net();
    net.units.set(URL, h.unit);
    let tries = 0;
    const connect = async (n: { url: string }) => {
      if (++tries === 1) throw new Err('LINK_DOWN', 'connect ECONNREFUSED');
      return net.connect(n);
    };
    const d = await dialer(net, { sync: { connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await within(d.sync.synced(URL), 5000, 'synced()');
    expect(await d.has(theirs)).toBe(true);
    expect(tries).toBe(2);
    await closeAll(d, h.s);
  });
});

describe('a push the host fails (5xx) on a quiet node', () => {
  it('HOST-17 PROTO-5: is pushed again backed off, not left behind until the next write or anti-entropy', async () => {
    const h = await hub();
    let refusals = 0;
    const failing: HostUnit = {
      access: h.unit.access,
      call: (m, a, c) => {
        if (m === 'push' && refusals-- > 0) return Promise.reject(new Err('INTERNAL', 'the host failed (its disk full)', { status: 503 }));
        return h.unit.call(m, a, c);
      },
      subscribe: (m, a, c, o) => h.unit.subscribe(m, a, c, o),
      stream: (id, c) => h.unit.stream(id, c),
      disconnect: (c) => h.unit.disconnect(c),
    };
    const net = new Net();
    net.units.set(URL, failing);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: URL, token: 't' });
    await within(d.sync.synced(URL), 5000, 'the first synced()');
    const refused = new Promise<void>((resolve) => d.sync.on('error', (e) => void (e.code === 'INTERNAL' && resolve())));
    refusals = 1;
    const id = await d.insert({ quiet: true });
    await refused;
    // Nothing else is written: only a retry brings the op to the host.
    await within(d.sync.synced(URL), 5000, 'synced() after the refused push');
    expect(await h.s.has(id)).toBe(true);
    await closeAll(d, h.s);
  });
});

describe('an app\'s connect() that gives no link', () => {
  it('OPT-1 LINK-8: is reported at once as INVALID_ARGUMENT naming the SyncLink shape (it was a bare TypeError from inside the dialer), with no connect event', async () => {
    for (const given of [{}, null, 42, { call: () => undefined }]) {
      const d = await dialer(new Net(), { sync: { connect: (() => given) as never } });
      const connects: unknown[] = [];
      d.sync.on('connect', (e) => connects.push(e));
      const reported = new Promise<SyncomError>((resolve) => d.sync.on('error', resolve));
      await d.sync.addNode({ url: URL, token: 't' });
      const error = await within(reported, 5000, 'the refusal reported');
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', url: URL, message: expect.stringContaining('SyncLink') });
      expect(connects).toEqual([]);
      expect(d.sync.peers()[0]).toMatchObject({ connected: false, lastError: error });
      await closeAll(d);
    }
  });
});

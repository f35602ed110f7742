import { getEventListeners, getMaxListeners } from 'node:events';
import type { Op } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, node, records, until, within } from './helpers';
import { helloOf, opsOf, push } from './scenario-helpers';

const URL = 'memory://h';

/**
 * A beforeApply that never answers while `hangs` (until `answer` is called), and answers true at
 * once after; `hooked` resolves at its first call.
 */
function hangingHook() {
  let asked!: () => void;
  const hooked = new Promise<void>((resolve) => (asked = resolve));
  const hook = {
    hangs: true,
    calls: [] as Op[],
    hooked,
    answers: [] as ((ok: boolean) => void)[],
    beforeApply: ({ op }: { op: Op }) => {
      hook.calls.push(op);
      asked();
      return hook.hangs ? new Promise<boolean>((resolve) => hook.answers.push(resolve)) : true;
    },
    answer: (ok: boolean) => hook.answers.forEach((a) => a(ok)),
  };
  return hook;
}

/** One turn of the event loop: what a late answer would start has run by then. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A hub, and a dialer synced with it whose beforeApply (`hook`) is asked about the hub's next insert. */
async function hookedDialer(hook: ReturnType<typeof hangingHook>) {
  const h = await hub();
  const net = new Net();
  net.units.set(URL, h.unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeApply: hook.beforeApply } } });
  await d.sync.addNode({ url: URL, token: 't' });
  await within(d.sync.synced(URL), 5000, 'synced()');
  const cursor = d.sync.peers()[0].cursor;
  await h.s.insert({ i: 1 });
  await hook.hooked;
  return { h, d, cursor };
}

describe('a beforeApply hook that never answers, on a changes page', () => {
  it('OPT-13 REG-3 LIFE-2: does not hold the dialer\'s stop: disabling the node ends', async () => {
    const hook = hangingHook();
    const { h, d } = await hookedDialer(hook);
    await within(d.sync.enableNode(URL, false), 2000, 'enableNode(url, false)');
    await closeAll(d, h.s);
  });

  it('REG-3 PROTO-12 PROTO-14: the page is let go untaken: the cursor stays, a late answer lands nothing, and the page comes again once the node is enabled', async () => {
    const hook = hangingHook();
    const { h, d, cursor } = await hookedDialer(hook);
    const syncs: unknown[] = [];
    const errors: unknown[] = [];
    d.sync.on('sync', (e) => syncs.push(e));
    d.sync.on('error', (e) => errors.push(e));
    await within(d.sync.enableNode(URL, false), 2000, 'enableNode(url, false)');
    hook.answer(true);
    await turn();
    // A write of its own goes through the one commit queue: a page the late answer had queued lands before it.
    await d.insert({ own: true });
    expect((await records(d)).map(([, data]) => data)).toEqual([{ own: true }]);
    // Let go by the stop, the page is no failure to report.
    expect(syncs).toEqual([]);
    expect(errors).toEqual([]);
    expect(d.sync.listNodes()[0].cursor).toBe(cursor);
    expect(hook.calls).toHaveLength(1);
    hook.hangs = false;
    await within(d.sync.enableNode(URL, true), 2000, 'enableNode(url, true)');
    await until(async () => (await records(d)).length === 2, [d], 5000);
    // Fetched again from the saved cursor, the same op is asked about again, and it lands once.
    expect(hook.calls.map((op) => op.id)).toEqual([hook.calls[0].id, hook.calls[0].id]);
    expect((await records(d)).map(([, data]) => data)).toContainEqual({ i: 1 });
    await closeAll(d, h.s);
  });

  it('REG-3: does not hold removeNode()', async () => {
    const hook = hangingHook();
    const { h, d } = await hookedDialer(hook);
    await within(d.sync.removeNode(URL), 2000, 'removeNode(url)');
    await closeAll(d, h.s);
  });

  it('LIFE-24: does not hold the storage\'s close(), and a late answer after it is ignored', async () => {
    const hook = hangingHook();
    const { h, d } = await hookedDialer(hook);
    const errors: unknown[] = [];
    d.on('error', (e) => errors.push(e));
    await within(d.close(), 2000, 'close()');
    hook.answer(true);
    await turn();
    expect(errors).toEqual([]);
    await closeAll(h.s);
  });
});

describe('a host\'s beforeApply hook that never answers, on a peer\'s push', () => {
  it('LIFE-24 HOST-1: does not hold the host\'s close(): the push is answered CLOSED, nothing of it taken, the hook asked no more, and a late answer is ignored', async () => {
    const hook = hangingHook();
    const h = await hub({}, { hooks: { beforeApply: hook.beforeApply } });
    const p = await node();
    await p.insert({ from: 'p' });
    await p.insert({ from: 'p', n: 2 });
    const ctx = {};
    await h.unit.call('hello', helloOf(p, ['*'], { token: 't' }), ctx);
    const pushed = push(h.unit, ctx, opsOf(p));
    await hook.hooked;
    const errors: unknown[] = [];
    h.s.on('error', (e) => errors.push(e));
    await within(h.s.close(), 2000, 'close()');
    await expect(within(pushed, 2000, 'the push')).rejects.toMatchObject({ code: 'CLOSED' });
    hook.answer(true);
    await turn();
    expect(errors).toEqual([]);
    expect(hook.calls).toHaveLength(1);
    expect(internals(h.s).log.read(0).filter((e) => e.op.origin === p.id)).toEqual([]);
    await closeAll(p);
  });
});

describe('a beforeConnect hook that never answers', () => {
  it('OPT-13 REG-3 LIFE-24: does not hold the dialer\'s stop or close(), and a late yes dials nothing', async () => {
    const h = await hub();
    const net = new Net();
    net.units.set(URL, h.unit);
    let asked!: () => void;
    const hooked = new Promise<void>((resolve) => (asked = resolve));
    let answer!: (ok: boolean) => void;
    const beforeConnect = () => { asked(); return new Promise<boolean>((resolve) => (answer = resolve)); };
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeConnect } } });
    await d.sync.addNode({ url: URL, token: 't' });
    await hooked;
    await within(d.sync.enableNode(URL, false), 2000, 'enableNode(url, false)');
    await within(d.close(), 2000, 'close()');
    answer(true);
    await turn();
    expect(net.links).toHaveLength(0);
    await closeAll(h.s);
  });
});

describe('a host\'s slow beforeApply with many pushes waiting at once', () => {
  it('HOST-1: the unit\'s signal takes a listener per page waiting, and no EventTarget leak warning follows', async () => {
    const hook = hangingHook();
    const h = await hub({}, { hooks: { beforeApply: hook.beforeApply } });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const peers = await Promise.all(Array.from({ length: 12 }, () => node()));
    const pushes: Promise<unknown>[] = [];
    for (const p of peers) {
      await p.insert({ from: p.id });
      const ctx = {};
      await h.unit.call('hello', helloOf(p, ['*'], { token: 't' }), ctx);
      pushes.push(push(h.unit, ctx, opsOf(p)));
    }
    for (let i = 0; i < 200 && hook.answers.length < peers.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(hook.answers).toHaveLength(peers.length);
    // Node warns (MaxListenersExceededWarning) once an EventTarget holds more listeners than its limit.
    const signal = (h.unit as unknown as { ends: AbortController }).ends.signal;
    expect(getMaxListeners(signal) === 0 || getMaxListeners(signal) >= getEventListeners(signal, 'abort').length).toBe(true);
    await turn();
    hook.answer(true);
    await Promise.all(pushes);
    await turn();
    process.off('warning', onWarning);
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    await closeAll(h.s, ...peers);
  });
});

import type { Storage } from '../../src';
import { closeAll, dialer, hub, Net, records, until } from '../sync/helpers';

/** A promise and its release, plus a promise that resolves when the held step is reached. */
function gate(): { held: Promise<void>; release(): void; reached: Promise<void>; reach(): void } {
  let release!: () => void;
  let reach!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (reach = r));
  return { held, release, reached, reach };
}

/** Whether a promise settled, read after the test's own awaits (no clock). */
function settled(p: Promise<unknown>): () => boolean {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  return () => done;
}

/**
 * A dialer of two hubs, o (empty) and h; the bootstrap that answers its first subscription
 * to o is held in beforeBootstrap: the window between "subscribed" and "bootstrapping".
 */
async function heldAtFirstBootstrap() {
  const net = new Net();
  const o = await hub();
  const h = await hub();
  net.units.set('memory://o', o.unit);
  net.units.set('memory://h', h.unit);
  const g = gate();
  const beforeBootstrap = async ({ url }: { url: string }) => {
    if (url !== 'memory://o') return true;
    g.reach();
    await g.held;
    return true;
  };
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeBootstrap } } });
  return { o, h, d, g };
}

const has = (s: Storage, n: number) => async () => (await records(s)).length === n;

describe('synced() and the first bootstrap from a host', () => {
  it('BOOT-1 BOOT-6: synced() stays pending while the host\'s answer to a first subscription (an empty bootstrap) is not taken, though both nodes are empty and the feed is open', async () => {
    const { o, h, d, g } = await heldAtFirstBootstrap();
    await d.sync.addNode({ url: 'memory://o', token: 't' });
    await g.reached;
    const [peer] = d.sync.peers();
    // The window the 25 ms poll hid: greeted, subscribed, nothing queued, no bootstrap flagged yet.
    expect(peer).toMatchObject({ connected: true, subscribed: true, bootstrapping: false, pending: 0 });
    const synced = d.sync.synced('memory://o');
    const isSynced = settled(synced);
    // A write in the window is pushed at once; its turn's end re-checks synced(), which must still wait.
    await d.insert({ w: 1 });
    await until(has(o.s, 1), [o.s, d]);
    await d.sync.sync();
    expect(isSynced()).toBe(false);
    g.release();
    await synced;
    expect(d.sync.peers()[0]).toMatchObject({ bootstrapping: false, subscribed: true });
    expect(d.sync.peers()[0].cursor).not.toBeNull();
    expect(await records(o.s)).toEqual(await records(d));
    await closeAll(d, o.s, h.s);
  });

  it('LIFE-3 HOST-16: a write, and ops relayed from another host, made while an empty bootstrap from the host is starting, reach that host', async () => {
    const { o, h, d, g } = await heldAtFirstBootstrap();
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await d.sync.synced('memory://h');
    await d.sync.addNode({ url: 'memory://o', token: 't' });
    await g.reached;
    await d.insert({ mine: 1 });
    await h.s.insert({ relayed: 1 });
    await until(has(o.s, 2), [o.s, d, h.s]);
    g.release();
    await Promise.all([d.sync.synced('memory://o'), d.sync.synced('memory://h')]);
    // Once the bootstrap is done, more ops of both kinds still reach it (nothing stopped the stream).
    await d.insert({ mine: 2 });
    await h.s.insert({ relayed: 2 });
    await until(has(o.s, 4), [o.s, d, h.s]);
    await d.sync.synced('memory://o');
    expect(await records(o.s)).toEqual(await records(d));
    expect(d.sync.peers().every((p) => !p.behind && p.lastError === null)).toBe(true);
    await closeAll(d, o.s, h.s);
  });
});

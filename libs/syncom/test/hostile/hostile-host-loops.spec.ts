import { packOps, type Storage, type SyncomError } from '../../src';
import type { HostUnit, SubscribeOptions } from '../../src/link';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { feedingUnit as feeding, turns } from './hostile-units';

/**
 * A node that dials a hostile host: the host's answers that restart the
 * dialer's feed (a bootstrap, a page that cannot land at the cursor) are
 * paced, not followed at once and forever.
 */

const URL = 'memory://h';

/** Let what the last page started run out (the link's hops, the dialer's next subscribe). */
const quiet = () => turns(10);

/** Resolves at the n-th `bootstrap` event of a storage from now. */
function bootstraps(s: Storage, n: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => { const off = s.sync.on('bootstrap', () => { if (++seen === n) { off(); resolve(); } }); });
}

/** A dialer on a net holding `unit` at URL, its errors collected. */
async function dialing(unit: HostUnit, options: Parameters<typeof dialer>[1] = {}) {
  const net = new Net();
  net.units.set(URL, unit);
  const d = await dialer(net, { ...options, sync: { connect: net.connect, antiEntropyInterval: 0, ...options.sync } });
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  return { net, d, errors };
}

describe('hostile host: a bootstrap asked again and again', () => {
  it('BOOT-1 HOST-17: a host that sends an empty changes page before each bootstrap is still asked again backed off (the empty page had started the count over: about 7,000 bootstraps a second)', async () => {
    const h = await hub();
    for (let i = 0; i < 3; i++) await h.s.insert({ i });
    let k = 0;
    const unit = feeding(h.unit, async (_n, o) => {
      await o.onData({ ops: [] }, `x.${++k}`);
      await o.onData({ bootstrap: true, reason: 'floor' }, undefined);
    });
    const { d } = await dialing(unit);
    const second = bootstraps(d, 2);
    await d.sync.addNode({ url: URL, token: 't' });
    await second;
    await quiet();
    // The first bootstrap subscribed again at once; the second waits its backoff, empty page or not.
    expect(unit.subscribes).toBe(2);
    expect(d.sync.peers()[0]).toMatchObject({ subscribed: false, stuck: false });
    expect(await d.list()).toHaveLength(3);
    await closeAll(d, h.s);
  });

  it('BOOT-1 HOST-17: a bootstrap asked two quiet minutes after the last one goes at once', async () => {
    const clock = { t: Date.now() };
    const h = await hub();
    const subs: SubscribeOptions[] = [];
    const unit = feeding(h.unit, (n, o) => {
      subs.push(o);
      if (n === 1) void o.onData({ bootstrap: true, reason: 'floor' }, undefined);
    });
    const { d } = await dialing(unit, { now: () => clock.t });
    const first = bootstraps(d, 1);
    await d.sync.addNode({ url: URL, token: 't' });
    await first;
    await quiet();
    expect(unit.subscribes).toBe(2);
    clock.t += 121_000;
    const second = bootstraps(d, 1);
    void subs[1].onData({ bootstrap: true, reason: 'floor' }, undefined);
    await second;
    await quiet();
    expect(unit.subscribes).toBe(3);
    await closeAll(d, h.s);
  });
});

describe('hostile host: pages that cannot land at the cursor', () => {
  it('PROTO-14 PROTO-16 PROTO-18: a host whose every page names a prev that is not the cursor is asked again backed off, and the peer is STUCK at the twelfth such page at one cursor (it had resubscribed 20,000 times in 81 ms, nothing reported): PAGE_FAILED, then STUCK', async () => {
    const h = await hub();
    const unit = feeding(h.unit, async (n, o) => {
      if (n === 1) await o.onData({ ops: [] }, 'x.1');
      await o.onData({ ops: [], prev: 'x.0' }, `x.${n + 1}`);
    });
    const { net, d, errors } = await dialing(unit);
    await d.sync.addNode({ url: URL, token: 't' });
    await unit.subscribed(2);
    await quiet();
    // A lost page is mended at once; the second refusal in a row waits.
    expect(unit.subscribes).toBe(2);
    expect(d.sync.peers()[0]).toMatchObject({ cursor: 'x.1', subscribed: false, stuck: false });
    expect(errors).toEqual([]);
    // Each reconnect greets again (a new session: one more at once), then waits again.
    for (let r = 0; r < 5; r++) {
      const link = net.links[net.links.length - 1];
      link.cut();
      link.restore();
      await unit.subscribed(4 + 2 * r);
      await quiet();
    }
    expect(unit.subscribes).toBe(12);
    expect(errors.map((e) => e.code)).toEqual(['PAGE_FAILED', 'STUCK']);
    expect(errors[0]).toMatchObject({ attempt: 12, cursor: 'x.1', url: URL });
    expect(errors[1]).toMatchObject({ cursor: 'x.1', url: URL });
    expect((errors[1] as Error).cause).toBe(errors[0]);
    expect(d.sync.peers()[0]).toMatchObject({ stuck: true, cursor: 'x.1' });
    const link = net.links[net.links.length - 1];
    link.cut();
    link.restore();
    await until(() => d.sync.peers()[0].connected, [d]);
    await quiet();
    expect(unit.subscribes).toBe(12);
    await closeAll(d, h.s);
  });

  it('PROTO-14 PROTO-18: a host whose every page shows a gap is asked again backed off, not at once (20,000 resubscriptions in 233 ms)', async () => {
    const h = await hub();
    const w = await node();
    await w.insert({ a: 1 });
    await w.insert({ b: 2 });
    // w's second op without its first: a gap at any node that lacks both.
    const gap = packOps([internals(w).log.read(0).at(-1)!.op]);
    const unit = feeding(h.unit, async (n, o) => {
      if (n === 1) await o.onData({ ops: [] }, 'x.1');
      await o.onData({ ops: gap, prev: 'x.1' }, `x.${n + 1}`);
    });
    const { d, errors } = await dialing(unit);
    const gaps: number[] = [];
    d.sync.on('sync', (e) => e.gaps > 0 && gaps.push(e.gaps));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => gaps.length === 2, [d]);
    await quiet();
    expect(unit.subscribes).toBe(2);
    expect(d.sync.peers()[0]).toMatchObject({ cursor: 'x.1', subscribed: false, stuck: false });
    expect(errors).toEqual([]);
    await closeAll(d, h.s, w);
  });
});

describe('hostile host: an event id that is none', () => {
  it('PROTO-14 PROTO-18: a page whose event id is no <epoch>.<seq> (a megabyte of text) is not kept as the cursor, saved or sent back: the feed is opened again from the cursor it had', async () => {
    const h = await hub();
    const huge = `x.${'9'.repeat(1 << 20)}`;
    const unit = feeding(h.unit, async (n, o) => {
      if (n === 1) {
        await o.onData({ ops: [] }, 'x.1');
        await o.onData({ ops: [] }, huge);
      }
    });
    const { d } = await dialing(unit);
    await d.sync.addNode({ url: URL, token: 't' });
    await unit.subscribed(2);
    await quiet();
    expect(d.sync.peers()[0].cursor).toBe('x.1');
    expect(d.sync.listNodes()[0].cursor).toBe('x.1');
    await closeAll(d, h.s);
  });
});

describe('hostile host: a snapshot that never ends', () => {
  it.each([['empty pages', false], ['the same record on every page', true]])('BOOT-2 PROTO-7: %s one offset apart (under a total of 2^53 - 1) fail the bootstrap with PAGE_FAILED after 64 in a row, and it is asked again backed off, not paged for ever', async (_what, repeat) => {
    const h = await hub();
    await h.s.insert({ a: 1 });
    let snapshots = 0;
    let first: Record<string, unknown> | undefined;
    const unit = {
      access: h.unit.access,
      meta: h.unit.meta,
      subscribe: (m: string, a: unknown, c: object, o: SubscribeOptions) => h.unit.subscribe(m, a, c, o),
      stream: (id: string, c: object) => h.unit.stream(id, c),
      disconnect: (c: object) => h.unit.disconnect(c),
      call: async (m: string, a: unknown, c: object) => {
        if (m !== 'snapshot') return h.unit.call(m, a, c);
        snapshots++;
        first ??= (await h.unit.call(m, a, c)) as Record<string, unknown>;
        const offset = (a as { offset?: number }).offset ?? 0;
        return { ...first, entries: offset === 0 || repeat ? first.entries : [], next: offset + 1, total: Number.MAX_SAFE_INTEGER };
      },
    } as HostUnit;
    const { d, errors } = await dialing(unit);
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.some((e) => e.code === 'PAGE_FAILED'), [d]);
    expect(errors.find((e) => e.code === 'PAGE_FAILED')?.message).toContain('65 pages in a row with no record not sent before');
    // The first page (its one record), then 65 without a new one: the next would have been asked at once, and so on.
    expect(snapshots).toBe(66);
    await closeAll(d, h.s);
  });
});

describe('an honest host: a streamed page left empty', () => {
  it('BOOT-2 BOOT-3 HOST-6: a streamed page whose one record moved out of the paging\'s scopes before the pull brings no entry, and the bootstrap goes on to the records after it', async () => {
    const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
    const h = await hub({ pageBytes: 2000, pageSize: 10 }, { sync: { scope: typed } });
    await h.s.set('a', { $type: 'Doc', big: 'x'.repeat(5000) });
    await h.s.set('b', { $type: 'Doc', n: 1 });
    await h.s.set('c', { $type: 'Doc', n: 2 });
    let moved = false;
    const unit = {
      access: h.unit.access,
      meta: h.unit.meta,
      call: (m: string, a: unknown, c: object) => h.unit.call(m, a, c),
      subscribe: (m: string, a: unknown, c: object, o: SubscribeOptions) => h.unit.subscribe(m, a, c, o),
      disconnect: (c: object) => h.unit.disconnect(c),
      stream: (id: string, c: object) => (async function* () {
        // The host's user moves the large record to another type between the page and the pull.
        if (!moved) (moved = true, await h.s.set('a', { $type: 'Other', big: 'x'.repeat(5000) }));
        yield* h.unit.stream(id, c);
      })(),
    } as unknown as HostUnit;
    const { d, errors } = await dialing(unit, { sync: { scope: typed } });
    await d.sync.addNode({ url: URL, token: 't', scopes: ['Doc'] });
    await until(() => d.sync.peers()[0]?.subscribed === true, [d]);
    expect(moved).toBe(true);
    expect(errors).toEqual([]);
    expect((await d.list()).map((r) => r.id)).toEqual(['b', 'c']);
    await closeAll(d, h.s);
  });
});

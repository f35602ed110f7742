import type { Storage } from '../../src';
import { HeadWakes } from '../../src/log/head-wakes';
import { internals } from '../../src/testing';
import { Feed } from '../../src/sync/host/feed';
import { SharedReads } from '../../src/sync/host/shared-pages';
import { Slices } from '../../src/sync/host/slices';
import { SendWindow } from '../../src/sync/protocol/frames';
import { closeAll, node } from './helpers';

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('HeadWakes: listeners waiting for the head to reach a position', () => {
  it('calls each listener once, when the head first reaches its position', async () => {
    const w = new HeadWakes();
    const calls: string[] = [];
    const a = () => calls.push('a');
    const b = () => calls.push('b');
    w.add(10, b, 0);
    w.add(5, a, 0);
    w.add(5, a, 0);
    expect(w.size).toBe(2);
    w.reached(4, () => undefined);
    expect(calls).toEqual([]);
    w.reached(7, () => undefined);
    expect(calls).toEqual(['a']);
    w.reached(12, () => undefined);
    w.reached(20, () => undefined);
    expect(calls).toEqual(['a', 'b']);
    expect(w.size).toBe(0);
  });

  it('cancel takes a listener back; a position the head already reached calls in a microtask; a throwing listener does not stop the others', async () => {
    const w = new HeadWakes();
    const calls: string[] = [];
    const a = () => calls.push('a');
    const bad = () => { throw new Error('listener failed'); };
    w.add(5, a, 0);
    w.cancel(5, a);
    w.cancel(5, a);
    w.add(6, bad, 0);
    w.add(6, () => calls.push('c'), 0);
    const errors: Error[] = [];
    w.reached(6, (e) => errors.push(e));
    expect(calls).toEqual(['c']);
    expect(errors.map((e) => e.message)).toEqual(['listener failed']);
    w.add(3, () => calls.push('now'), 6);
    expect(calls).toEqual(['c']);
    await Promise.resolve();
    expect(calls).toEqual(['c', 'now']);
    expect(w.size).toBe(0);
  });
});

describe('a feed is called at every append only while idle with no page out', () => {
  let stores: Storage[] = [];
  afterEach(async () => {
    await closeAll(...stores);
    stores = [];
  });

  it('PROTO-6: parked feeds are not called per append; a page of log wakes them without the ack; the ack makes them listen again', async () => {
    const s = await node();
    stores = [s];
    const log = internals(s).log;
    const before = log.appended.size;
    const shared = new SharedReads();
    const acks: (() => void)[] = [];
    const pages: unknown[][] = [[], [], []];
    const feeds = pages.map((got, i) => new Feed({
      replica: s.replica, node: `peer-${i}`, scopes: ['*'], from: s.replica.head, pageSize: 5, pageBytes: 1 << 20,
      shared, window: new SendWindow(), now: 0, bootstrap: () => undefined,
      send: (page) => {
        got.push(page);
        return new Promise<void>((resolve) => acks.push(resolve));
      },
    }));
    // Idle at the head with no page out: each takes every append.
    await flush();
    expect(log.appended.size).toBe(before + 3);
    await s.insert({ n: 0 });
    while (pages.some((p) => p.length < 1)) await flush();
    // A page out each, nothing more to send: none is called at an append.
    expect(log.appended.size).toBe(before);
    expect(log.wakes.size).toBe(3);
    for (let n = 1; n <= 4; n++) await s.insert({ n });
    await flush();
    expect(pages.map((p) => p.length)).toEqual([1, 1, 1]);
    // The fifth op since the page makes a page's worth: each feed sends it with the first still unacked.
    await s.insert({ n: 5 });
    while (pages.some((p) => p.length < 2)) await flush();
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
    // Every page acked: the feeds take every append again, and the next op goes out at once.
    acks.splice(0).forEach((ack) => ack());
    await flush();
    expect(log.appended.size).toBe(before + 3);
    expect(log.wakes.size).toBe(0);
    await s.insert({ n: 6 });
    while (pages.some((p) => p.length < 3)) await flush();
    for (const f of feeds) f.close();
    expect(log.appended.size).toBe(before);
    expect(log.wakes.size).toBe(0);
  });

  it('PROTO-6: feeds draining (waiting for a turn) are called at no append, and send what came meanwhile', async () => {
    const s = await node();
    stores = [s];
    const log = internals(s).log;
    const before = log.appended.size;
    // Every turn past the first in a slice waits for a macrotask: 50 feeds drain over many turns.
    const clock = { t: 0 };
    const slices = new Slices({ budgetMs: 1, now: () => (clock.t += 1) });
    const ops: number[] = Array.from({ length: 50 }, () => 0);
    const feeds = ops.map((_, i) => new Feed({
      replica: s.replica, node: `peer-${i}`, scopes: ['*'], from: s.replica.head, pageSize: 500, pageBytes: 1 << 20,
      slices, window: new SendWindow(), now: 0, bootstrap: () => undefined,
      send: (page) => { ops[i] += (page as { ops: unknown[] }).ops.length; },
    }));
    await flush();
    await s.insert({ n: 0 });
    let seenDraining = false;
    for (let n = 1; n <= 5; n++) {
      // Appends while feeds still wait for their turns: those are not called.
      if (log.appended.size < before + 50) seenDraining = true;
      await s.insert({ n });
    }
    while (ops.some((k) => k < 6)) await flush();
    expect(seenDraining).toBe(true);
    expect(ops).toEqual(Array.from({ length: 50 }, () => 6));
    await flush();
    expect(log.appended.size).toBe(before + 50);
    for (const f of feeds) f.close();
  });

  it('PROTO-6: a feed whose window closed with pages out is not woken again and again: the event loop keeps turning', async () => {
    const s = await node();
    stores = [s];
    const log = internals(s).log;
    const window = new SendWindow();
    const feed = new Feed({
      replica: s.replica, node: 'peer', scopes: ['*'], from: s.replica.head, pageSize: 2, pageBytes: 1 << 20,
      window, now: 0, bootstrap: () => undefined,
      send: () => new Promise<void>(() => undefined),
    });
    await s.insert({ n: 0 });
    while (log.wakes.size === 0) await flush();
    // The link goes: the window answers no slot any more, while the feed still counts its page out.
    window.close();
    for (let n = 1; n <= 4; n++) await s.insert({ n });
    // A feed woken at once after every stopped drain would hold the microtask queue: these would never run.
    for (let i = 0; i < 5; i++) await flush();
    expect(log.wakes.size).toBe(0);
    feed.close();
  });

  it('PROTO-6: a parked feed that closes leaves no wait behind', async () => {
    const s = await node();
    stores = [s];
    const log = internals(s).log;
    const feed = new Feed({
      replica: s.replica, node: 'peer', scopes: ['*'], from: s.replica.head, pageSize: 5, pageBytes: 1 << 20,
      window: new SendWindow(), now: 0, bootstrap: () => undefined,
      send: () => new Promise<void>(() => undefined),
    });
    await s.insert({ n: 0 });
    while (log.wakes.size === 0) await flush();
    feed.close();
    expect(log.wakes.size).toBe(0);
  });
});

import type { Storage } from '../../src';
import type { Replica } from '../../src/storage/replica';
import { Feed } from '../../src/sync/host/feed';
import { SharedReads } from '../../src/sync/host/shared-pages';
import { Slices } from '../../src/sync/host/slices';
import { SendWindow } from '../../src/sync/protocol/frames';
import { closeAll, node } from './helpers';

/**
 * The hub's fan-out in bounded slices: a feed asks for a turn before each
 * page, and past the slice's budget waits for a later macrotask, so one
 * append fanned out to many subscribers lets the event loop in (acks, pings,
 * connections) and serves every subscriber in turn. Feeds that drifted to
 * different positions step on the same page bounds and share their pages.
 */

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Subscriber {
  feed: Feed;
  pages: unknown[];
}

/** A feed of `node` from `from` on `replica`, sharing `shared`, its sends counted (each send moves `clock` 1 ms). */
function subscriber(replica: Replica, o: { node: string; from: number; shared: SharedReads; slices: Slices; clock?: { t: number } }): Subscriber {
  const sub: Subscriber = { pages: [], feed: undefined as unknown as Feed };
  sub.feed = new Feed({
    replica, node: o.node, scopes: ['*'], from: o.from, pageSize: 500, pageBytes: 4 * 1024 * 1024,
    shared: o.shared, slices: o.slices, window: new SendWindow(), now: 0,
    send: (page) => {
      if (o.clock) o.clock.t += 1;
      sub.pages.push(page);
    },
    bootstrap: () => undefined,
  });
  return sub;
}

describe('the feed drain in bounded slices', () => {
  let stores: Storage[] = [];
  afterEach(async () => {
    await closeAll(...stores);
    stores = [];
  });

  /** A node (closed after the test), a settable clock, slices timed by it, shared reads. */
  const rig = async (budgetMs?: number) => {
    const s = await node();
    stores = [s];
    const clock = { t: 0 };
    const slices = budgetMs === undefined ? new Slices() : new Slices({ budgetMs, now: () => clock.t });
    return { s, clock, slices, shared: new SharedReads() };
  };

  it('PROTO-6: one append fanned out to 500 subscribers yields to the event loop, and every subscriber gets its page', async () => {
    const { s, clock, slices, shared } = await rig(4);
    const subs = Array.from({ length: 500 }, (_, i) => subscriber(s.replica, { node: `peer-${i}`, from: s.replica.head, shared, slices, clock }));
    // A macrotask of the test's own, again and again: what it sees of the fan-out.
    const seen: number[] = [];
    let probing = true;
    const probe = () => {
      seen.push(subs.filter((x) => x.pages.length > 0).length);
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    await s.insert({ n: 1 });
    while (subs.some((x) => x.pages.length === 0)) await flush();
    probing = false;
    // Macrotasks ran while the drain was under way: after some subscribers had their page, before all had.
    expect(seen.some((n) => n > 0 && n < 500)).toBe(true);
    expect(slices.waiting).toBe(0);
    // One page each, the same object for all: one read, one encoding at the transport.
    for (const x of subs) expect(x.pages).toEqual([subs[0].pages[0]]);
    expect(new Set(subs.map((x) => x.pages[0])).size).toBe(1);
    for (const x of subs) x.feed.close();
  });

  it('PROTO-6: waiters are served in turn: a subscriber with much to send does not hold the others back', async () => {
    const { s, clock, slices, shared } = await rig(2);
    const from = s.replica.head;
    for (let n = 0; n < 30; n++) await s.insert({ n });
    // pageSize 500 makes one page of 30; a behind subscriber of a small page size has 30 pages to send.
    const slow: Subscriber = { pages: [], feed: undefined as unknown as Feed };
    slow.feed = new Feed({
      replica: s.replica, node: 'slow', scopes: ['*'], from, pageSize: 1, pageBytes: 1 << 20, slices,
      window: new SendWindow(64), now: 0, bootstrap: () => undefined,
      send: (page) => {
        clock.t += 1;
        slow.pages.push(page);
      },
    });
    const others = Array.from({ length: 20 }, (_, i) => subscriber(s.replica, { node: `p${i}`, from, shared, slices, clock }));
    while (others.some((x) => x.pages.length === 0)) await flush();
    // Every other subscriber had its page before the slow one sent all of its 30.
    expect(slow.pages.length).toBeLessThan(30);
    while (slow.pages.length < 30) await flush();
    for (const x of [slow, ...others]) x.feed.close();
  });

  it('PROTO-6: a subscriber that drifted behind reuses the page another sent from the same event id, though the log grew since', async () => {
    const { s, slices, shared } = await rig();
    const from = s.replica.head;
    await s.insert({ n: 1 });
    await s.insert({ n: 2 });
    const a = subscriber(s.replica, { node: 'a', from, shared, slices });
    while (a.feed.pos < s.replica.head) await flush();
    // The log grows before the second subscriber reads from the same position.
    await s.insert({ n: 3 });
    while (a.feed.pos < s.replica.head) await flush();
    const b = subscriber(s.replica, { node: 'b', from, shared, slices });
    while (b.feed.pos < s.replica.head) await flush();
    // b stepped on a's page bounds: the same page objects, so a transport encodes each once.
    expect(a.pages.length).toBe(2);
    expect(b.pages.length).toBe(2);
    b.pages.forEach((page, i) => expect(page).toBe(a.pages[i]));
    for (const x of [a, b]) x.feed.close();
  });

  it('PROTO-6: a subscriber far behind reads a larger page than the short one kept from its position', async () => {
    const { s, slices, shared } = await rig();
    const from = s.replica.head;
    const a = subscriber(s.replica, { node: 'a', from, shared, slices });
    await s.insert({ n: 0 });
    while (a.feed.pos < s.replica.head) await flush();
    for (let n = 1; n <= 10; n++) await s.insert({ n });
    const b = subscriber(s.replica, { node: 'b', from, shared, slices });
    while (b.feed.pos < s.replica.head) await flush();
    expect((a.pages[0] as { ops: unknown[] }).ops.length).toBe(1);
    expect(b.pages.length).toBe(1);
    expect(b.pages[0]).not.toBe(a.pages[0]);
    for (const x of [a, b]) x.feed.close();
  });
});

import { internals } from '../../src/testing/internals';
import fc from 'fast-check';
import { unpackOps, type Storage } from '../../src';
import type { HostUnit, SubscribeOptions } from '../../src/link';
import { isEntry } from '../../src/crdt';
import { frameEnds, jsonBytes, MAX_IN_FLIGHT_FRAMES, SendWindow } from '../../src/sync/protocol/frames';
import { pageBound } from '../../src/socket.io/socket-io-feed';
import type { SnapshotPage } from '../../src/sync/host/snapshot';
import { closeAll, dialer, hub, Net, node, records, until } from './helpers';
import { gate, greet, record } from './scenario-helpers';

/**
 * Issue 6 point 3: bounded frames and a send window. Every push, changes page
 * and snapshot page holds at most pageSize records and pageBytes bytes, cut
 * between records; a host has at most maxInFlightFrames frames out to a peer
 * unacknowledged, and a slow receiver pauses it.
 */

const URL = 'memory://hub';
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Turns of the event loop until `ok` holds (at most 100): a feed sends in time slices, a macrotask between, so a loaded machine may need several. */
const turnsUntil = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await flush();
};

/** What crossed a watched unit: pushes, changes pages, snapshot pages and stream chunks, and the frames out unacknowledged. */
interface Frames {
  pushes: unknown[][];
  pages: unknown[];
  snapshots: SnapshotPage[];
  chunks: Buffer[];
  /** Changes pages of ops sent and not acknowledged now, and the most at any moment (bootstrap notices aside). */
  out: number;
  maxOut: number;
  /** Resolves once `check` holds, re-checked at every frame and ack (no polling). */
  until(check: () => boolean): Promise<void>;
}

/** A host unit whose traffic is recorded; each changes page counts as out until the link acknowledges it. */
function watchFrames(inner: HostUnit): HostUnit & { frames: Frames } {
  const waiters = new Set<() => void>();
  const poke = () => [...waiters].forEach((w) => w());
  const frames: Frames = {
    pushes: [], pages: [], snapshots: [], chunks: [], out: 0, maxOut: 0,
    until: (check) => new Promise((resolve) => {
      const test = () => { if (check()) { waiters.delete(test); resolve(); } };
      waiters.add(test);
      test();
    }),
  };
  return {
    access: inner.access,
    meta: inner.meta,
    frames,
    async call(method, args, context) {
      if (method === 'push') frames.pushes.push((args as { ops: unknown[] }).ops);
      const answer = await inner.call(method, args, context);
      if (method === 'snapshot') frames.snapshots.push(answer as SnapshotPage);
      return answer;
    },
    subscribe(method, args, context, options: SubscribeOptions) {
      return inner.subscribe(method, args, context, {
        ...options,
        onData: (value, eventId) => {
          frames.pages.push(value);
          const counted = Array.isArray((value as { ops?: unknown })?.ops) ? 1 : 0;
          frames.out += counted;
          frames.maxOut = Math.max(frames.maxOut, frames.out);
          poke();
          const acked = () => { frames.out -= counted; poke(); };
          return Promise.resolve(options.onData(value, eventId)).then(acked, (e: unknown) => { acked(); throw e; });
        },
      });
    },
    async *stream(id, context) {
      for await (const chunk of inner.stream(id, context)) {
        frames.chunks.push(Buffer.from(chunk));
        yield chunk;
      }
    },
    disconnect: (context) => inner.disconnect(context),
  };
}

/** A hub whose unit is watched, on a net of memory links. */
async function watchedHub(unit: Parameters<typeof hub>[0] = {}) {
  const h = await hub(unit);
  const watched = watchFrames(h.unit);
  const net = new Net();
  net.units.set(URL, watched);
  return { s: h.s, unit: h.unit, frames: watched.frames, net };
}

/** A dialer of the hub that took its first-contact bootstrap and is subscribed: what lands next comes as changes pages. */
async function reader(net: Net, options: Parameters<typeof dialer>[1] = {}): Promise<Storage> {
  const d = await dialer(net, options);
  const boots = record(d, 'bootstrap');
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => boots.length === 1 && d.sync.peers()[0]?.subscribed === true, [d]);
  return d;
}

/** A frame's bound holds: at most `count` records, at most `bytes` of JSON unless it is one record alone. */
function within(records: unknown[], count: number, bytes: number): boolean {
  return records.length >= 1 && records.length <= count && (records.length === 1 || jsonBytes(records) <= bytes);
}

/** The ops of the changes pages that carry ops (not bootstrap notices). */
const opPages = (f: Frames) => f.pages.map((p) => (p as { ops?: unknown[] }).ops).filter((ops): ops is unknown[] => Array.isArray(ops));

/** Every snapshot page's bound holds; a streamed page is whole NDJSON lines, one record above the bound alone. */
function checkSnapshots(f: Frames, pageSize: number, pageBytes: number): number {
  let entries = 0;
  for (const page of f.snapshots) {
    if (page.entries) {
      if (page.entries.length === 0) continue;
      expect(within(page.entries, pageSize, pageBytes)).toBe(true);
      entries += page.entries.length;
    }
  }
  for (const chunk of f.chunks) {
    const text = chunk.toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n').map((l) => JSON.parse(l) as { id: string });
    expect(lines.every((e) => isEntry(e, e.id))).toBe(true);
    // Only a record above pageBytes is streamed: it comes alone, whole, in one chunk.
    expect(lines).toHaveLength(1);
    expect(chunk.length).toBeGreaterThan(pageBytes - 2);
    entries += lines.length;
  }
  return entries;
}

describe('bounded frames', () => {
  it('frameEnds cuts in order between records, at most maxCount records and maxBytes of JSON a frame, a larger record alone (property, fixed seed)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(300), { maxLength: 60 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 2, max: 800 }), (sizes, maxCount, maxBytes) => {
        const ends = frameEnds(sizes, maxCount, maxBytes);
        let start = 0;
        for (const end of ends) {
          const frame = sizes.slice(start, end);
          expect(frame.length).toBeGreaterThanOrEqual(1);
          expect(frame.length).toBeLessThanOrEqual(maxCount);
          const bytes = 2 + frame.reduce((n, s) => n + s, 0) + frame.length - 1;
          if (frame.length > 1) expect(bytes).toBeLessThanOrEqual(maxBytes);
          // Greedy: the next record would not have fitted.
          if (end < sizes.length) expect(frame.length === maxCount || bytes + 1 + sizes[end] > maxBytes).toBe(true);
          start = end;
        }
        expect(start).toBe(sizes.length);
      }),
      { seed: 6_3, numRuns: 500 },
    );
  });

  it('OPT-12 HOST-5 HOST-6 HOST-7 PROTO-6 PROTO-7: every push, changes page and snapshot page holds at most pageSize records and pageBytes bytes, cut on record boundaries, whatever the record sizes; everyone converges (property, fixed seed)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(1500), { minLength: 1, maxLength: 30 }), fc.integer({ min: 2, max: 7 }), fc.integer({ min: 700, max: 3000 }),
        async (pads, pageSize, pageBytes) => {
          const h = await watchedHub({ pageSize, pageBytes });
          const live = await reader(h.net);
          const writer = await node({ sync: { connect: h.net.connect, pageSize, pageBytes } });
          for (const [i, n] of pads.entries()) await writer.insert({ i, pad: 'x'.repeat(n) });
          await writer.sync.addNode({ url: URL, token: 't' });
          const fresh = await dialer(h.net);
          const all = (s: Storage) => async () => (await records(s)).length === pads.length;
          await until(all(live), [live, h.s, writer]);
          await fresh.sync.addNode({ url: URL, token: 't' });
          await until(all(fresh), [fresh]);
          const f = h.frames;
          for (const ops of f.pushes) {
            expect(within(ops, pageSize, pageBytes)).toBe(true);
            expect(unpackOps(ops).malformed).toBe(0);
          }
          expect(f.pushes.flat()).toHaveLength(pads.length);
          for (const ops of opPages(f)) {
            expect(within(ops, pageSize, pageBytes)).toBe(true);
            expect(unpackOps(ops).malformed).toBe(0);
          }
          expect(opPages(f).flat()).toHaveLength(pads.length);
          // The fresh node's bootstrap, and the writer's own first contact (its records as the hub held them then).
          expect(checkSnapshots(f, pageSize, pageBytes)).toBeGreaterThanOrEqual(pads.length);
          for (const s of [live, fresh, writer]) expect(await records(s)).toEqual(await records(h.s));
          await closeAll(live, writer, fresh, h.s);
        },
      ),
      { seed: 603, numRuns: 6 },
    );
  });

  it('OPT-12 HOST-6 HOST-7: a record bigger than pageBytes goes alone, whole, in its push, its changes page and its snapshot page (streamed: one chunk)', async () => {
    const pageBytes = 2000;
    const h = await watchedHub({ pageSize: 10, pageBytes });
    const live = await reader(h.net);
    const writer = await node({ sync: { connect: h.net.connect, pageBytes } });
    for (let i = 0; i < 4; i++) await writer.insert({ i });
    const big = await writer.insert({ big: 'y'.repeat(100_000) });
    for (let i = 4; i < 8; i++) await writer.insert({ i });
    await writer.sync.addNode({ url: URL, token: 't' });
    const fresh = await dialer(h.net);
    await until(async () => (await records(live)).length === 9, [live, h.s]);
    await fresh.sync.addNode({ url: URL, token: 't' });
    await until(async () => (await records(fresh)).length === 9, [fresh]);
    const f = h.frames;
    const carries = (ops: unknown[]) => unpackOps(ops).ops.some((op) => op.id === big);
    expect(f.pushes.map((ops) => ops.length)).toEqual([4, 1, 4]);
    expect(f.pushes.filter(carries).map((ops) => ops.length)).toEqual([1]);
    expect(opPages(f).filter(carries).map((ops) => ops.length)).toEqual([1]);
    expect(jsonBytes(opPages(f).find(carries))).toBeGreaterThan(100_000);
    // The fresh node's bootstrap streamed it (the writer's first contact may have too): alone, whole, one chunk.
    expect(f.chunks.length).toBeGreaterThanOrEqual(1);
    expect(checkSnapshots(f, 10, pageBytes)).toBeGreaterThanOrEqual(9);
    for (const chunk of f.chunks) expect(JSON.parse(chunk.toString('utf8'))).toMatchObject({ id: big });
    for (const s of [live, fresh, writer]) expect(await records(s)).toEqual(await records(h.s));
    await closeAll(live, writer, fresh, h.s);
  });

  it('HOST-7: a dialer keeps its pushes within the host\'s pushBytes from hello (the host\'s bytesPerPush): no 413', async () => {
    const h = await watchedHub({ pageSize: 100, limits: { bytesPerPush: 3000 } });
    const writer = await node({ sync: { connect: h.net.connect } });
    for (let i = 0; i < 20; i++) await writer.insert({ i, pad: 'x'.repeat(500) });
    const errors: unknown[] = [];
    writer.sync.on('error', (e) => void errors.push(e));
    await writer.sync.addNode({ url: URL, token: 't' });
    await until(async () => (await records(h.s)).length === 20, [h.s, writer]);
    expect(errors).toEqual([]);
    expect(h.frames.pushes.length).toBeGreaterThan(1);
    for (const ops of h.frames.pushes) expect(jsonBytes(ops)).toBeLessThanOrEqual(3000);
    await closeAll(writer, h.s);
  });
});

describe('records answers', () => {
  it('a records answer (reconcile/1) holds at most pageSize entries within pageBytes, one larger alone; `taken` says how many ids, and the dialer asks the rest', async () => {
    const h = await hub({ pageSize: 50, pageBytes: 1500 });
    const p = await node();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await h.s.insert({ i, pad: 'x'.repeat(i === 5 ? 3000 : 200) }));
    const ctx = await greet(h.unit, p);
    const got: string[] = [];
    for (let i = 0; i < ids.length;) {
      const ans = (await h.unit.call('records', { scope: '*', ids: ids.slice(i) }, ctx)) as { entries: { id: string }[]; taken: number };
      expect(within(ans.entries, 50, 1500)).toBe(true);
      expect(ans.taken).toBe(ans.entries.length);
      got.push(...ans.entries.map((e) => e.id));
      i += ans.taken;
    }
    expect(got).toEqual(ids);
    await closeAll(h.s, p);
  });
});

describe('the send window', () => {
  it('a SendWindow grants at most its size of slots, in order of asking; an ack frees one; close() answers every waiter and frees all', async () => {
    const w = new SendWindow(2);
    const a = await w.acquire();
    const b = await w.acquire();
    const order: string[] = [];
    const c = w.acquire().then((s) => (order.push('c'), s));
    const d = w.acquire().then((s) => (order.push('d'), s));
    await flush();
    expect([w.inFlight, order]).toEqual([2, []]);
    a?.release();
    a?.release();
    expect(await c).toBeDefined();
    expect([w.inFlight, order]).toEqual([2, ['c']]);
    w.close();
    expect(await d).toBeUndefined();
    expect(w.inFlight).toBe(0);
    b?.release();
    expect(await w.acquire()).toBeUndefined();
  });

  it('HOST-5: maxInFlightFrames is a positive integer, at most MAX_IN_FLIGHT_FRAMES, the window a dialer holds a host to (INVALID_ARGUMENT otherwise)', async () => {
    const s = await node();
    for (const bad of [0, -1, 1.5, Number.NaN, MAX_IN_FLIGHT_FRAMES + 1]) {
      expect(() => s.sync.unit({ maxInFlightFrames: bad })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    expect(() => s.sync.unit({ maxInFlightFrames: 1 })).not.toThrow();
    expect(() => s.sync.unit({ maxInFlightFrames: MAX_IN_FLIGHT_FRAMES })).not.toThrow();
    // The socket.io link drops a host past its offered window, that wide at most, plus a slack of a few pages.
    expect(pageBound({ window: MAX_IN_FLIGHT_FRAMES, ackTimeout: 1000 })).toBeGreaterThan(MAX_IN_FLIGHT_FRAMES);
    await closeAll(s);
  });

  it.each([['default', undefined, 16], ['3', 3, 3]])(
    'PROTO-6 LOG-7: a receiver that takes nothing holds the host at exactly maxInFlightFrames (%s) pages out; the feed stops reading the log; acks let it finish and the receiver converges',
    async (_name, maxInFlightFrames, window) => {
      const h = await watchedHub({ pageSize: 5, maxInFlightFrames });
      const slow = gate();
      const live = await reader(h.net, { hooks: { beforeApply: () => slow.wait.then(() => true) } });
      const f = h.frames;
      const writer = await node({ sync: { connect: h.net.connect } });
      for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 5 }, (_, j) => writer.insert({ i, j })));
      await writer.sync.addNode({ url: URL, token: 't' });
      await until(async () => (await records(h.s)).length === 200, [h.s, writer]);
      await f.until(() => opPages(f).length === window);
      await flush();
      await flush();
      expect(opPages(f)).toHaveLength(window);
      expect(f.out).toBe(window);
      // It stopped reading: its cursor is the last page it sent, not the log's head.
      const cursor = h.s.sync.hosted()[0].cursor;
      expect(cursor).not.toBe(internals(h.s).log.eventId());
      slow.open();
      await until(async () => (await records(live)).length === 200, [live]);
      await f.until(() => f.out === 0);
      expect(f.maxOut).toBe(window);
      expect(opPages(f).flat()).toHaveLength(200);
      expect(await records(live)).toEqual(await records(h.s));
      await closeAll(live, writer, h.s);
    },
  );

  it('PROTO-12 LOG-7: a link that closes with the window full releases it; the feed ends, and after restore it resumes from the last page taken and the receiver converges', async () => {
    const h = await watchedHub({ pageSize: 5 });
    const slow = gate();
    const live = await reader(h.net, { hooks: { beforeApply: () => slow.wait.then(() => true) } });
    for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 5 }, (_, j) => h.s.insert({ i, j })));
    const f = h.frames;
    await f.until(() => opPages(f).length === 16);
    expect(h.s.sync.hosted()).toHaveLength(1);
    h.net.links[0].cut();
    expect(h.s.sync.hosted()).toEqual([]);
    slow.open();
    await f.until(() => f.out === 0);
    h.net.links[0].restore();
    await until(async () => (await records(live)).length === 200, [live]);
    expect(f.maxOut).toBeLessThanOrEqual(16);
    expect(await records(live)).toEqual(await records(h.s));
    await closeAll(live, h.s);
  });

  it('LINK-5: snapshot stream chunks take slots of the same window: with it full of unacknowledged pages, the next chunk waits for an ack', async () => {
    const h = await hub({ pageSize: 1, pageBytes: 1000, maxInFlightFrames: 4 });
    const p = await node();
    for (let i = 0; i < 6; i++) await h.s.insert({ i });
    await h.s.insert({ big: 'z'.repeat(5000) });
    const ctx = await greet(h.unit, p);
    const acks: Array<() => void> = [];
    const pages: unknown[] = [];
    h.unit.subscribe('changes', {}, ctx, {
      lastEventId: internals(h.s).log.eventId(0),
      onData: (value) => { pages.push(value); return new Promise<void>((resolve) => acks.push(resolve)); },
    });
    await turnsUntil(() => pages.length >= 4);
    expect(pages).toHaveLength(4);
    let streamed: string | undefined;
    for (let offset = 0, token: string | undefined; !streamed; ) {
      const page = (await h.unit.call('snapshot', { token, offset, stream: true }, ctx)) as SnapshotPage;
      [token, streamed, offset] = [page.token, page.stream, page.next ?? 0];
    }
    const chunks = h.unit.stream(streamed, ctx)[Symbol.asyncIterator]();
    let got = false;
    const first = chunks.next().then((r) => ((got = true), r));
    await flush();
    expect(got).toBe(false);
    // Slots go in the order they were asked for: the feed's next page first, then the chunk.
    acks[0]();
    await turnsUntil(() => pages.length >= 5);
    expect([pages.length, got]).toEqual([5, false]);
    acks[1]();
    const r = await first;
    expect(r.done).toBe(false);
    expect(Buffer.from(r.value as Uint8Array).toString('utf8')).toContain('z'.repeat(5000));
    // The chunk holds its slot until the consumer asks for more: the feed waits behind it.
    await turnsUntil(() => pages.length >= 5);
    expect(pages).toHaveLength(5);
    expect((await chunks.next()).done).toBe(true);
    await turnsUntil(() => pages.length >= 6);
    expect(pages).toHaveLength(6);
    for (const ack of acks) ack();
    await closeAll(h.s, p);
  });
});

import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Server, type Socket } from 'socket.io';
import { Delivery, summarize } from '../../../scripts/load/delivery';
import { PageCache } from '../../../scripts/load/page-cache';
import { pages, RawPeer } from '../../../scripts/load/raw-peer';

type Ack = (answer: unknown) => void;
const ok = (value: unknown) => ({ ok: true, value });
/** A packed write op as a page carries it: origin, seq, ts, type, id, scope, from, then the rest. */
const op = (origin: string, seq: number) => [origin, seq, 1, 'write', `${origin}:${seq}`, null, null, null, null, { n: seq }, null, null, null, null, null, 'sig', null, null];

/**
 * A stand-in hub on socket.io's own server (namespace /syncom): answers
 * hello, records every `changes`, and lets the test send pages and errors.
 */
class FakeHub {
  readonly http: HttpServer = createServer();
  readonly io = new Server(this.http, { transports: ['websocket'] });
  readonly changes: { sub: string; lastEventId?: string }[] = [];
  socket?: Socket;
  private opened: (() => void)[] = [];

  constructor() {
    this.io.of('/syncom').on('connection', (s) => {
      this.socket = s;
      s.on('hello', (_m: unknown, ack: Ack) => ack(ok({ epoch: 'E', floor: 0 })));
      s.on('changes', (m: { sub: string; lastEventId?: string }, ack: Ack) => {
        this.changes.push(m);
        ack(ok(null));
        this.opened.splice(0).forEach((f) => f());
      });
      s.on('push', (m: { ops: unknown[][] }, ack: Ack) => ack(ok({ applied: m.ops.length })));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/syncom`;
  }

  /** Resolves at the next `changes` the hub answers. */
  nextChanges(): Promise<void> {
    return new Promise((resolve) => this.opened.push(resolve));
  }

  /** Sends a page of `ops` ending at `eventId` to the current sub; resolves with the peer's answer. */
  page(ops: unknown[][], eventId: string, sub = this.changes[this.changes.length - 1].sub): Promise<unknown> {
    return this.socket!.timeout(5000).emitWithAck('changes:data', { sub, value: { ops }, eventId });
  }

  close(): Promise<void> {
    return new Promise((resolve) => { this.io.close(() => resolve()); });
  }
}

describe('the load tool\'s raw peer', () => {
  let hub: FakeHub;
  let peer: RawPeer;
  let url: string;

  beforeEach(async () => {
    hub = new FakeHub();
    url = await hub.listen();
  });
  afterEach(async () => {
    peer?.close();
    await hub.close();
  });

  it('opens its feed from position 0, acks each page, and counts what reached it per stream with no hole', async () => {
    const delivery = new Delivery();
    peer = new RawPeer(7, delivery);
    await peer.connect(url, 't');
    expect(hub.changes).toEqual([{ sub: 'load.7.0', lastEventId: 'E.0' }]);
    delivery.ack('A#1', performance.timeOrigin);
    expect(await hub.page([op('A', 1), op('A', 2), op('B', 1)], 'E:3')).toEqual(ok(null));
    expect(peer.seen).toEqual({ A: 2, B: 1 });
    expect(peer.covers({ A: 2, B: 1, [peer.node]: 5 })).toBe(true);
    expect(peer.holes).toBe(0);
    await hub.page([op('A', 4)], 'E:4');
    expect(peer.holes).toBe(1);
    // A#1's ack was known: one delivery timed; the others wait for their writers' acks.
    expect(summarize(delivery.figures()).count).toBe(1);
  });

  it('answers covers() from its streams whether or not a stream has a hole, its own stream aside', async () => {
    peer = new RawPeer(3);
    await peer.connect(url, 't');
    const goal = { A: 3, B: 1, [peer.node]: 9 };
    await hub.page([op('A', 1), op('A', 2), op('B', 1)], 'E:3');
    expect(peer.covers(goal)).toBe(false);
    await hub.page([op('A', 3)], 'E:4');
    expect(peer.covers(goal)).toBe(true);
    // With a hole, fewer ops than the goal's seqs may still cover it: the streams decide.
    expect(peer.covers({ A: 5, B: 1 })).toBe(false);
    await hub.page([op('A', 5)], 'E:5');
    expect([peer.holes, peer.ops]).toEqual([1, 5]);
    expect(peer.covers({ A: 5, B: 1 })).toBe(true);
  });

  it('resubscribes from the last page it took when its feed ends with ACK_TIMEOUT, under a new sub, and drops a late page of the old one', async () => {
    peer = new RawPeer(1);
    await peer.connect(url, 't');
    await hub.page([op('A', 1)], 'E:1');
    const reopened = hub.nextChanges();
    hub.socket!.emit('changes:error', { sub: 'load.1.0', error: { code: 'ACK_TIMEOUT', status: 408 } });
    await reopened;
    expect(hub.changes[1]).toEqual({ sub: 'load.1.1', lastEventId: 'E:1' });
    expect(await hub.page([op('A', 2)], 'E:2', 'load.1.0')).toEqual(ok(null));
    expect(peer.seen).toEqual({ A: 1 });
    await hub.page([op('A', 2)], 'E:2');
    expect([peer.seen, peer.holes]).toEqual([{ A: 2 }, 0]);
    expect(Object.fromEntries(peer.errors)).toEqual({ 'feed ACK_TIMEOUT': 1, resubscribed: 1 });
  });

  it('pushes a signed write and keeps it once the hub applied it', async () => {
    peer = new RawPeer(2);
    await peer.connect(url, 't');
    await peer.write();
    expect(peer.acked.map((w) => w.seq)).toEqual([1]);
  });

  it('decodes a page once per process: the same bytes are reused, other bytes at the same event id and length are read anew', () => {
    const cache = new PageCache();
    const frame = (ops: unknown[][]) => Buffer.from(`["changes:data",{"sub":"s",${JSON.stringify({ value: { ops }, eventId: 'E:9' }).slice(1)}]`);
    const at = '["changes:data",{"sub":"s",'.length;
    const one = cache.read(frame([op('A', 1)]), at);
    expect(one?.ops.map((o) => [o.stream, o.seq, o.write])).toEqual([['A', 1, 'A#1']]);
    expect(cache.read(frame([op('A', 1)]), at)).toBe(one);
    const other = cache.read(frame([op('B', 1)]), at);
    expect(other?.ops[0].stream).toBe('B');
    expect([cache.decoded, cache.spliced, cache.reused]).toEqual([1, 1, 1]);
    expect(cache.read(Buffer.from('["changes:data",{"sub":"s","value":{"bootstrap":true}}]'), at)).toBeUndefined();
    expect(pages).toBeInstanceOf(PageCache);
  });

  it('reads a page that differs from a kept one at the same event id by parsing only the ops between their common prefix and suffix', () => {
    const cache = new PageCache();
    const at = '["changes:data",{"sub":"s",'.length;
    const frame = (ops: unknown[][], prev = 'E:1') => Buffer.from(`["changes:data",{"sub":"s",${JSON.stringify({ value: { ops, prev }, eventId: 'E:9' }).slice(1)}]`);
    const refs = (p: ReturnType<PageCache['read']>) => p?.ops.map((o) => `${o.stream}@${o.seq}`);
    cache.read(frame([op('A', 1), op('B', 1), op('C', 1)]), at);
    // A writer's page: the shared one without its own op.
    expect(refs(cache.read(frame([op('A', 1), op('C', 1)]), at))).toEqual(['A@1', 'C@1']);
    expect(refs(cache.read(frame([op('A', 1), op('B', 1), op('D', 1), op('C', 1)]), at))).toEqual(['A@1', 'B@1', 'D@1', 'C@1']);
    expect([cache.decoded, cache.spliced]).toEqual([1, 2]);
    // Another prev: the pages differ outside the ops, so it is decoded whole.
    expect(refs(cache.read(frame([op('A', 1)], 'E:2'), at))).toEqual(['A@1']);
    expect([cache.decoded, cache.spliced]).toEqual([2, 2]);
  });

  it('a spliced page holds the same ops as the page decoded whole, whatever ops differ', () => {
    const at = '["changes:data",{"sub":"s",'.length;
    const frame = (ops: unknown[][]) => Buffer.from(`["changes:data",{"sub":"s",${JSON.stringify({ value: { ops, prev: 'E:1' }, eventId: 'E:9' }).slice(1)}]`);
    const view = (p: ReturnType<PageCache['read']>) => p?.ops.map((o) => [o.stream, o.index, o.origin, o.seq, o.write]);
    // Origins sharing prefixes and suffixes, so the common parts end inside ops.
    const anOp = fc.tuple(fc.constantFrom('A', 'AB', 'ABC', 'B', 'BB'), fc.integer({ min: 1, max: 120 })).map(([o, n]) => op(o, n));
    let spliced = 0;
    fc.assert(fc.property(fc.array(fc.array(anOp, { maxLength: 8 }), { minLength: 2, maxLength: 5 }), (lists) => {
      const cache = new PageCache();
      for (const ops of lists) {
        const got = cache.read(frame(ops), at);
        expect(view(got)).toEqual(view(new PageCache().read(frame(ops), at)));
      }
      expect(cache.spliced + cache.decoded + cache.reused).toBe(lists.length);
      spliced += cache.spliced;
    }));
    expect(spliced).toBeGreaterThan(50);
  });
});

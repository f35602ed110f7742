import type { SyncomError } from '../../src';
import type { LogEntry } from '../../src/log/op-log';
import { packOps, unpackOps } from '../../src/op';
import { RefusedStreams } from '../../src/sync/dial/refused-streams';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, Net, node, until } from '../sync/helpers';
import { dialerOf, wrapUnit } from '../sync/scenario-helpers';
import { refusingUnit, turns } from './hostile-units';

/**
 * A stream a host stopped for a refusal that stands (an op refused as
 * unsigned, forged or out of scope) is held (RefusedStreams): pages from the
 * host and writes of this node push none of it, and read nothing of the log
 * for it. Only its refused op goes again, at a sign of life, backed off from
 * 1 s doubling to a minute (HOST-16, HOST-17); a new hello, sync() or the
 * host's vector passing that op push what follows. Before, every page and
 * every write read the whole log and pushed every op the host lacked again:
 * a hostile host's empty page of 20 bytes cost the dialer its whole log, and
 * one honest scope refusal made W later writes push about W²/2 ops.
 */

const URL = 'memory://refusing';
const typed = (_id: string, data: Record<string, unknown>) => (typeof data.$type === 'string' ? data.$type : '*');
const entry = (origin: string, seq: number, pos = seq) => ({ pos, flags: 0, op: { origin, seq } }) as LogEntry;

/** Counts the reads of `d`'s log that return at least `min` entries (a read of the whole log, for a recovery). */
function bigReads(d: Parameters<typeof internals>[0], min: number) {
  const log = internals(d).log;
  const read = log.read.bind(log);
  const count = { n: 0 };
  jest.spyOn(log, 'read').mockImplementation((after, limit) => {
    const out = read(after, limit);
    if (out.length >= min) count.n++;
    return out;
  });
  return count;
}

/** A node of `n` writes dialing a host that refuses every push as unsigned, its clock the test's; greeted, its feed open. */
async function refused(n: number) {
  const clock = { t: Date.now() };
  const h = await hub();
  const unit = refusingUnit(h.unit);
  const sizes: number[] = [];
  const call = unit.call.bind(unit);
  unit.call = (m, a, c) => {
    if (m === 'push') sizes.push(unpackOps((a as { ops: unknown }).ops).ops.length);
    return call(m, a, c);
  };
  const net = new Net();
  net.units.set(URL, unit);
  const d = await node({ now: () => clock.t, sync: { connect: net.connect, antiEntropyInterval: 0 } });
  for (let i = 0; i < n; i++) await d.insert({ i });
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  await d.sync.addNode({ url: URL, token: 't' });
  // The feed opens once the hello's push is answered.
  await unit.subscribed;
  let ev = 0;
  const page = () => (unit.feed as NonNullable<typeof unit.feed>).onData({ ops: [] }, `ev.${++ev}`);
  return { h, d, unit, sizes, clock, errors, page, net };
}

describe('RefusedStreams', () => {
  it('SCOPE-19: holds a stream at its refused op when that op is the next the host needs, not after a hole there', () => {
    const r = new RefusedStreams(() => 0);
    // Stream n: the host holds 2, refused 3 (4 is a gap behind it). Stream m: the host holds 1 and 3 came first (a hole).
    expect(r.hold([entry('n', 3), entry('n', 4), entry('m', 3)], { n: 2, m: 1 })).toBe(false);
    expect([r.holds(entry('n', 3), { n: 2 }), r.holds(entry('n', 9), { n: 2 }), r.holds(entry('n', 2), { n: 1 })]).toEqual([true, true, false]);
    expect(r.holds(entry('m', 3), { m: 1 })).toBe(false);
    expect(r.any).toBe(true);
  });

  it('HOST-16: a hold goes once the host\'s vector passes its op, and only then', () => {
    const r = new RefusedStreams(() => 0);
    r.hold([entry('n', 3)], { n: 2 });
    expect(r.moved(['n', 'x'], { n: 2, x: 5 })).toBe(false);
    expect(r.moved(['n'], { n: 3 })).toBe(true);
    expect(r.any).toBe(false);
  });

  it('HOST-17: the refused op is due at once, then backed off 1 s doubling to a minute from each sign of life that retried it', () => {
    const clock = { t: 0 };
    const r = new RefusedStreams(() => clock.t);
    r.hold([entry('n', 3, 7)], { n: 2 });
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const start = clock.t;
      while (!r.due) clock.t += 500;
      waits.push(clock.t - start);
      r.queue();
      expect(r.due).toBe(false);
      // The retry reads the refused op at its position, and it passes holds() while under way.
      expect(r.retry((pos) => (pos === 7 ? entry('n', 3, 7) : undefined)).map((e) => e.op.seq)).toEqual([3]);
      expect(r.holds(entry('n', 3), { n: 2 })).toBe(false);
      expect(r.retried()).toBe(false);
      expect(r.holds(entry('n', 3), { n: 2 })).toBe(true);
    }
    expect(waits).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
    // Taken at last: let go, and a stream held later is due at once.
    clock.t += 60_000;
    r.queue();
    r.retry(() => entry('n', 3, 7));
    r.moved(['n'], { n: 3 });
    expect(r.retried()).toBe(true);
    expect(r.any).toBe(false);
    r.hold([entry('m', 5)], { m: 4 });
    expect(r.due).toBe(true);
  });
});

describe('hostile host: a host refusing every push as unsigned', () => {
  it('HOST-16 HOST-17 SIG-17: its empty pages and this node\'s writes read no whole log and push only the refused op, backed off 1 s doubling to a minute', async () => {
    const N = 1000;
    const { h, d, sizes, clock, errors, page } = await refused(N);
    // The hello's push: its first frame refused, the stream held, the second frame not sent.
    expect(sizes).toEqual([500]);
    expect(d.sync.peers()[0]).toMatchObject({ behind: true, lastError: { code: 'UNSIGNED' } });
    const big = bigReads(d, 100);
    // Ten empty pages and five writes: the first page pushes the refused op again; then it is backed off.
    for (let k = 0; k < 10; k++) await page();
    for (let k = 0; k < 5; k++) await d.insert({ extra: k });
    // Each backoff waited out (the clock is the storage's), a page pushes the refused op again; a page just before does not.
    for (const wait of [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]) {
      clock.t += wait - 1;
      await page();
      clock.t += 1;
      await page();
      await d.insert({ at: wait });
    }
    // sync() takes its turn after every one queued before it, and pushes everything the host lacks again.
    await d.sync.sync();
    expect(sizes).toEqual([500, 1, 1, 1, 1, 1, 1, 1, 1, 1, 500]);
    expect(big.n).toBe(1);
    expect(errors.map((e) => e.code)).toEqual(['UNSIGNED']);
    expect(d.sync.peers()[0]).toMatchObject({ behind: true, pending: 0 });
    await closeAll(d, h.s);
  });

  it('HOST-16: a new hello pushes what the host lacks again (the refusal may no longer stand)', async () => {
    const { h, d, sizes, net } = await refused(20);
    expect(sizes).toEqual([20]);
    net.links[0].cut();
    net.links[0].restore();
    await until(() => sizes.length === 2, [d]);
    expect(sizes).toEqual([20, 20]);
    await closeAll(d, h.s);
  });
});

describe('an honest host\'s scope refusal (SCOPE-19)', () => {
  it('SCOPE-19 HOST-16 HOST-17: W writes after one op refused as out of scope push the refused op once, not W²/2 ops; once the cause is gone, all reach the host', async () => {
    const clock = { t: Date.now() };
    const h = await hub({}, { sync: { scope: typed } });
    let opsPushed = 0;
    const counting = wrapUnit(h.unit, (m, args, _ctx, next) => {
      if (m === 'push') opsPushed += unpackOps((args as { ops: unknown }).ops).ops.length;
      return next();
    });
    const net = new Net();
    net.units.set(URL, counting);
    const n = await node({ now: () => clock.t, sync: { connect: net.connect, scope: typed, antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    n.sync.on('error', (e) => errors.push(e));
    let answered = 0;
    n.sync.on('sync', (e) => { if (e.pushed > 0) answered++; });
    await n.sync.addNode({ url: URL, token: 't', scopes: ['A'] });
    await until(() => n.sync.peers()[0]?.subscribed === true && n.sync.peers()[0].connected, [n]);
    const r = await h.s.insert({ $type: 'A', title: 'in A' });
    await until(async () => n.has(r), [n]);
    await h.s.update(r, { $type: 'B' });
    // Written before it hears of the move: refused as out of scope, its stream of A stops at the host.
    await n.update(r, { title: 'written in A here' });
    await until(() => errors.some((e) => e.code === 'OUT_OF_SCOPE'), [n]);
    const [before, pushes] = [opsPushed, answered];
    const big = bigReads(n, 50);
    const W = 100;
    const ids: string[] = [];
    for (let i = 0; i < W; i++) ids.push(await n.insert({ $type: 'A', i }));
    // The first write pushed the refused op again (refused again), the others nothing: it is backed off a second.
    await until(() => answered > pushes, [n]);
    expect(opsPushed).toBe(before + 1);
    expect(big.n).toBe(0);
    expect(n.sync.peers()[0]).toMatchObject({ behind: true, lastError: { code: 'OUT_OF_SCOPE' } });
    // The record moves back to A at the host: past the backoff, its page (a sign of life) pushes the refused op, taken now, and the writes behind it.
    clock.t += 1000;
    await h.s.update(r, { $type: 'A' });
    await n.sync.synced(URL, { timeout: 10_000 });
    expect(await Promise.all(ids.map((id) => h.s.has(id)))).toEqual(ids.map(() => true));
    expect((await h.s.get(r))?.title).toBe('written in A here');
    expect(opsPushed - before).toBe(1 + 1 + W);
    expect(n.sync.peers()[0].behind).toBe(false);
    expect(errors.map((e) => e.code)).toEqual(['OUT_OF_SCOPE']);
    await closeAll(n, h.s);
  });
});

describe('signs of life backed off after a recovery that failed (fake timers)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  it('HOST-17: a recovery whose pushes the host took none of backs the next one off; a write meanwhile reads no whole log', async () => {
    const h = await hub();
    const unit = refusingUnit(h.unit, { gaps: 1 });
    const net = new Net();
    net.units.set(URL, unit);
    const d = await node({ sync: { connect: net.connect, antiEntropyInterval: 0 } });
    for (let i = 0; i < 200; i++) await d.insert({ i });
    let answered = 0;
    d.sync.on('sync', (e) => { if (e.pushed > 0) answered++; });
    await d.sync.addNode({ url: URL, token: 't' });
    await unit.subscribed;
    // The hello's push moved nothing of the host's vector: a failed recovery.
    expect(dialerOf(d, URL).backoff).toBe(1000);
    const big = bigReads(d, 100);
    // A write's push is a gap there (the peer is behind); the signs of life after it wait out the backoff.
    await d.insert({ extra: 0 });
    await until(() => answered === 2, [d]);
    expect(d.sync.peers()[0].behind).toBe(true);
    for (let k = 1; k < 10; k++) await d.insert({ extra: k });
    expect(unit.pushes).toBe(2);
    expect(big.n).toBe(0);
    // Past it, one recovery pushes what the host lacks, and the next is backed off further.
    await jest.advanceTimersByTimeAsync(1000);
    await until(() => answered === 3, [d]);
    await turns(5);
    expect(big.n).toBe(1);
    expect(dialerOf(d, URL).backoff).toBe(2000);
    await closeAll(d, h.s);
  });

  it('HOST-16 HOST-17: a page showing the host holds the refused op lets its stream go: what follows is pushed, backed off after the hello\'s push that failed', async () => {
    const { h, d, unit, sizes } = await refused(20);
    expect(dialerOf(d, URL).backoff).toBe(1000);
    const own = internals(d).log.read(0).filter((e) => e.op.origin === d.id);
    // The host's page brings this node's op 1 (another peer delivered it there): its vector passed the refused op.
    await (unit.feed as NonNullable<typeof unit.feed>).onData({ ops: packOps([own[0].op]) }, 'ev.100');
    expect(d.sync.peers()[0].behind).toBe(true);
    expect(sizes).toEqual([20]);
    await jest.advanceTimersByTimeAsync(1000);
    await until(() => sizes.length === 2, [d]);
    expect(sizes).toEqual([20, 19]);
    await closeAll(d, h.s);
  });
});

import { internals } from '../../src/testing/internals';
import { packOps, SyncomError, type Limits, type Storage } from '../../src';
import { PeerBuckets, purgesIn, TokenBucket } from '../../src/sync/protocol/limits';
import { closeAll, dialer, hub, Net, node, until } from './helpers';
import { craft, dialerOf, gate, greet, push, record, waitFor, wrapUnit } from './scenario-helpers';

const URL = 'memory://hub';

/** A hub with limits whose clock the test moves (the token bucket's). */
async function limitedHub(limits: Limits) {
  const clock = { t: Date.now() };
  // Two tokens: a bucket is a token's (limitKey), so two peers need two tokens to have two buckets.
  const h = await hub({ limits, authorize: (_c, hello) => hello.token === 't' || hello.token === 'u' }, { now: () => clock.t });
  const limited = record(h.s, 'limited');
  return { ...h, clock, limited };
}

/** n write ops of p's, seqs from `from`, each carrying `data`. */
function writes(p: Storage, n: number, from = 1, data: Record<string, unknown> = {}) {
  return Array.from({ length: n }, (_, i) => craft(p, { type: 'write', id: `r${from + i}`, data: { i: from + i, ...data } }, '*', from + i));
}

/** Write `count` records, one at a time. */
async function pushAll(d: Storage, count: number) {
  for (let i = 0; i < count; i++) await d.insert({ i });
}

describe('hosting: limits', () => {
  it('HOST-7 HOST-9 HOST-10 HOST-19: a push over opsPerPush is refused 413 OPS_PER_PUSH, whatever carried it; the refusal is counted by reason', async () => {
    const h = await limitedHub({ opsPerPush: 2 });
    const p = await node();
    const ctx = await greet(h.unit, p);
    await expect(push(h.unit, ctx, writes(p, 3))).rejects.toMatchObject({ code: 'OPS_PER_PUSH', status: 413 });
    expect(internals(h.s).log.vector[p.id]).toBeUndefined();
    await expect(push(h.unit, ctx, writes(p, 2))).resolves.toMatchObject({ applied: 2 });
    expect(h.limited).toEqual([{ node: p.id, reason: 'OPS_PER_PUSH' }]);
    await closeAll(h.s, p);
  });

  it('HOST-11 HOST-7: a push whose JSON is over bytesPerPush (UTF-8 bytes) is refused 413 BYTES_PER_PUSH', async () => {
    const p = await node();
    const op = writes(p, 1, 1, { text: 'é'.repeat(300) });
    const chars = JSON.stringify(packOps(op)).length;
    const h = await limitedHub({ bytesPerPush: chars + 100 });
    const ctx = await greet(h.unit, p);
    await expect(push(h.unit, ctx, op)).rejects.toMatchObject({ code: 'BYTES_PER_PUSH', status: 413 });
    await expect(push(h.unit, ctx, writes(p, 1, 1, { text: 'e'.repeat(300) }))).resolves.toMatchObject({ applied: 1 });
    expect(h.limited).toEqual([{ node: p.id, reason: 'BYTES_PER_PUSH' }]);
    await closeAll(h.s, p);
  });

  it('HOST-12: opsPerSecond is a token bucket per peer, refilled at that rate, holding one second; a push needing more than it holds is refused whole', async () => {
    const h = await limitedHub({ opsPerSecond: 5 });
    const p = await node();
    const q = await node();
    const ops = writes(p, 20);
    const ctx = await greet(h.unit, p);
    let at = 0;
    const next = (n: number) => ops.slice(at, (at += n));
    await expect(push(h.unit, ctx, next(3))).resolves.toMatchObject({ applied: 3 });
    await expect(push(h.unit, ctx, ops.slice(at, at + 3))).rejects.toMatchObject({ code: 'OPS_PER_SECOND', status: 429 });
    await expect(push(h.unit, ctx, next(2))).resolves.toMatchObject({ applied: 2 });
    await expect(push(h.unit, ctx, ops.slice(at, at + 1))).rejects.toMatchObject({ status: 429 });
    h.clock.t += 200;
    await expect(push(h.unit, ctx, next(1))).resolves.toMatchObject({ applied: 1 });
    h.clock.t += 60_000;
    await expect(push(h.unit, ctx, ops.slice(at, at + 6))).rejects.toMatchObject({ code: 'OPS_PER_SECOND' });
    await expect(push(h.unit, ctx, next(5))).resolves.toMatchObject({ applied: 5 });
    const qctx = await greet(h.unit, q, ['*'], { token: 'u' });
    await expect(push(h.unit, qctx, writes(q, 5))).resolves.toMatchObject({ applied: 5 });
    expect(h.limited.map((l) => l.reason)).toEqual(['OPS_PER_SECOND', 'OPS_PER_SECOND', 'OPS_PER_SECOND']);
    await closeAll(h.s, p, q);
  });

  it('HOST-12: purgesPerSecond is a bucket of its own per peer: purges over it are refused 429 PURGES_PER_SECOND and consume nothing; a push of more than a second\'s worth passes on a full bucket and the next purges wait it off; writes do not count', async () => {
    const h = await limitedHub({ purgesPerSecond: 2, opsPerSecond: 100 });
    const p = await node();
    const ctx = await greet(h.unit, p);
    let seq = 0;
    const op = (type: 'write' | 'purge', id: string) => craft(p, type === 'write' ? { type, id, data: { id } } : { type, id }, '*', ++seq);
    const ids = Array.from({ length: 8 }, (_, i) => `r${i}`);
    await expect(push(h.unit, ctx, ids.map((id) => op('write', id)))).resolves.toMatchObject({ applied: 8 });
    // Three purges against two tokens, on a full bucket: taken, leaving it one below zero.
    await expect(push(h.unit, ctx, [op('purge', 'r0'), op('purge', 'r1'), op('purge', 'r2')])).resolves.toMatchObject({ applied: 3 });
    const refused = op('purge', 'r3');
    await expect(push(h.unit, ctx, [refused])).rejects.toMatchObject({ code: 'PURGES_PER_SECOND', status: 429 });
    seq--;
    // Writes pass meanwhile; the refused purge took nothing from opsPerSecond: 11 ops taken, 89 left, exactly these.
    const more = Array.from({ length: 89 }, (_, i) => op('write', `w${i}`));
    await expect(push(h.unit, ctx, more)).resolves.toMatchObject({ applied: 89 });
    h.clock.t += 600;
    await expect(push(h.unit, ctx, [op('purge', 'r3')])).rejects.toMatchObject({ code: 'PURGES_PER_SECOND' });
    seq--;
    h.clock.t += 400;
    await expect(push(h.unit, ctx, [op('purge', 'r3')])).resolves.toMatchObject({ applied: 1 });
    expect(await h.s.get('r3')).toBeUndefined();
    expect(await h.s.get('r4')).toMatchObject({ id: 'r4' });
    expect(h.limited.map((l) => l.reason)).toEqual(['PURGES_PER_SECOND', 'PURGES_PER_SECOND']);
    await closeAll(h.s, p);
  });

  it('HOST-12: the purges of a page are its purge ops and its merges carrying a purge marker; a bucket in debt refills from below zero', () => {
    const ops = packOps([
      { origin: 'o', seq: 1, ts: 1, type: 'purge', id: 'a' },
      // A purge marker is a stamp, as a merge carries it (crdt/check-entry.ts); `true` is counted too.
      { origin: 'o', seq: 2, ts: 2, type: 'merge', id: 'b', data: { id: 'b', latest: [2, 'o'], purged: [2, 'o'], fields: {} } as never },
      { origin: 'o', seq: 3, ts: 3, type: 'merge', id: 'c', data: { id: 'c', fields: {} } as never },
      { origin: 'o', seq: 4, ts: 4, type: 'write', id: 'd', data: { purged: true } },
      { origin: 'o', seq: 5, ts: 5, type: 'merge', id: 'e', data: { id: 'e', purged: true } as never },
    ]);
    expect(purgesIn(ops)).toBe(3);
    expect(purgesIn([1, null, 'purge', { type: 'purge' }])).toBe(0);
    let t = 0;
    const b = new TokenBucket(4, () => t, true);
    expect(b.take(10)).toBe(true);
    expect(b.fits(1)).toBe(false);
    t = 1500;
    expect(b.take(1)).toBe(false);
    t = 2500;
    expect(b.take(4)).toBe(true);
    expect(b.take(1)).toBe(false);
    expect(new TokenBucket(4, () => t).take(10)).toBe(false);
  });

  it('HOST-12: the bucket is the peer\'s token\'s — a fresh hello, on this connection or another, does not refill it', async () => {
    const h = await limitedHub({ opsPerSecond: 3 });
    const p = await node();
    const ops = writes(p, 6);
    const ctx = await greet(h.unit, p);
    await expect(push(h.unit, ctx, ops.slice(0, 3))).resolves.toMatchObject({ applied: 3 });
    await greet(h.unit, p, ['*'], { token: 't' }, ctx);
    await expect(push(h.unit, ctx, ops.slice(3, 4))).rejects.toMatchObject({ status: 429 });
    const other = await greet(h.unit, p);
    await expect(push(h.unit, other, ops.slice(3, 4))).rejects.toMatchObject({ status: 429 });
    h.clock.t += 1000;
    await expect(push(h.unit, other, ops.slice(3, 6))).resolves.toMatchObject({ applied: 3 });
    await closeAll(h.s, p);
  });

  it('HOST-12: TokenBucket refills at its rate up to one second\'s worth and refuses a take it cannot cover without consuming', () => {
    let t = 0;
    const b = new TokenBucket(10, () => t);
    expect(b.take(11)).toBe(false);
    expect(b.take(10)).toBe(true);
    expect(b.take(1)).toBe(false);
    t = 550;
    expect(b.take(6)).toBe(false);
    expect(b.take(5)).toBe(true);
    t = 100_000;
    expect(b.take(10)).toBe(true);
    expect(b.take(1)).toBe(false);
    t = 99_000;
    expect(b.take(1)).toBe(false);
  });

  it('HOST-12: PeerBuckets keeps one bucket per key and forgets only idle (full) ones when many peers were seen', () => {
    let t = 0;
    const buckets = new PeerBuckets(2, () => t, 2);
    expect(new PeerBuckets(undefined, () => t).for('a')).toBeUndefined();
    const a = buckets.for('a');
    expect(buckets.for('a')).toBe(a);
    a?.take(2);
    const b = buckets.for('b');
    buckets.for('c');
    expect(buckets.for('a')).toBe(a);
    expect(buckets.for('b')).not.toBe(b);
    t = 1000;
    buckets.for('d');
    expect(buckets.for('a')).not.toBe(a);
  });

  it('HOST-12: PeerBuckets stays bounded when no bucket is idle: past max keys the least recently used go, and a peer heard from keeps its drained bucket', () => {
    const t = 0;
    // purgesPerSecond's buckets run into debt: a page of purges leaves one short for minutes, never idle.
    const buckets = new PeerBuckets(1, () => t, 64, true);
    const victim = buckets.for('token:victim');
    victim?.take(500);
    const keys = (b: PeerBuckets) => (b as unknown as { buckets: Map<string, unknown> }).buckets;
    for (let i = 0; i < 10_000; i++) {
      buckets.for(`token:made-up-${i}`)?.take(500);
      if (i % 16 === 0) expect(buckets.for('token:victim')).toBe(victim);
    }
    expect(keys(buckets).size).toBeLessThanOrEqual(64);
    expect(buckets.for('token:victim')).toBe(victim);
    expect(victim?.fits(1)).toBe(false);
  });

  it('HOST-12: PeerBuckets keeps a long key (a token of any length a permissive authorize let in) by its digest: a few dozen characters, still one bucket per key', () => {
    const buckets = new PeerBuckets(5, () => 0, 1024, false);
    const keys = (buckets as unknown as { buckets: Map<string, unknown> }).buckets;
    const long = (i: number) => `token:${String(i).padStart(8, '0')}${'x'.repeat(1 << 20)}`;
    const first = buckets.for(long(0));
    first?.take(5);
    for (let i = 1; i < 200; i++) buckets.for(long(i));
    expect(keys.size).toBe(200);
    expect([...keys.keys()].reduce((n, k) => n + k.length, 0)).toBeLessThanOrEqual(200 * 128);
    expect(buckets.for(long(0))).toBe(first);
    expect(buckets.for(long(1))).not.toBe(first);
    // A short key is kept as it is, and no short key reads as a digest.
    buckets.for('token:short');
    expect(keys.has('token:short')).toBe(true);
  });

  it('HOST-12: an identity authorize names keys the buckets: two tokens it maps to one user share one bucket, and a peer cannot pick a fresh one by the token string it sends', async () => {
    const clock = { t: Date.now() };
    // The user comes from what the app trusts (here a table of tokens; a cookie or a handshake header alike).
    const users: Record<string, string> = { t: 'alice', u: 'alice', v: 'bob' };
    const h = await hub({ limits: { opsPerSecond: 5 }, authorize: (_c, hello) => users[hello.token ?? ''] ?? false }, { now: () => clock.t });
    const p = await node();
    const q = await node();
    const r = await node();
    const pctx = await greet(h.unit, p, ['*'], { token: 't' });
    await expect(push(h.unit, pctx, writes(p, 4))).resolves.toMatchObject({ applied: 4 });
    const qctx = await greet(h.unit, q, ['*'], { token: 'u' });
    await expect(push(h.unit, qctx, writes(q, 2))).rejects.toMatchObject({ code: 'OPS_PER_SECOND', status: 429 });
    await expect(push(h.unit, qctx, writes(q, 1))).resolves.toMatchObject({ applied: 1 });
    const rctx = await greet(h.unit, r, ['*'], { token: 'v' });
    await expect(push(h.unit, rctx, writes(r, 5))).resolves.toMatchObject({ applied: 5 });
    await closeAll(h.s, p, q, r);
  });

  it('HOST-13 HOST-14 HOST-15: a refusal is an answer, not a hang-up: the dialer reports code and status, drops its outbox and marks the peer behind', async () => {
    const h = await limitedHub({});
    const entered = gate();
    const release = gate();
    let holding = false;
    const net = new Net();
    net.units.set(URL, wrapUnit(h.unit, async (method, _args, _ctx, next) => {
      if (method !== 'push' || !holding) return next();
      holding = false;
      entered.open();
      await release.wait;
      throw new SyncomError('OPS_PER_PUSH', 'a push of 1 ops is over opsPerPush 0', { status: 413 });
    }));
    const d = await dialer(net);
    const errors = record(d, 'error');
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    holding = true;
    await d.insert({ n: 0 });
    await entered.wait;
    await Promise.all(Array.from({ length: 5 }, (_, i) => d.insert({ i })));
    expect(d.sync.peers()[0].pending).toBe(5);
    release.open();
    await waitFor(() => errors.length > 0, [d]);
    await net.links[0].settle();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'OPS_PER_PUSH', status: 413, url: URL });
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, behind: true, pending: 0, lastError: errors[0] });
    expect(net.links[0].connected).toBe(true);
    expect(internals(h.s).log.vector[d.id]).toBeUndefined();
    await d.sync.sync();
    expect(internals(h.s).log.vector[d.id]).toBe(6);
    await closeAll(d, h.s);
  });

  it('HOST-18: a dialer whose pageSize is above the host\'s opsPerPush never gets a page through, sync() or not', async () => {
    const h = await limitedHub({ opsPerPush: 2 });
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, pageSize: 3, autoStart: false } });
    await pushAll(d, 3);
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.start();
    await waitFor(() => errors.length > 0, [d]);
    for (let i = 0; i < 3; i++) await d.sync.sync();
    expect(errors.length).toBeGreaterThanOrEqual(4);
    expect(errors.every((e) => e.code === 'OPS_PER_PUSH' && e.status === 413)).toBe(true);
    expect(internals(h.s).log.vector[d.id]).toBeUndefined();
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, behind: true });
    await closeAll(d, h.s);
  });
});

describe('hosting: limits and recovery (fake timers)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  /** A hub whose pushes the test refuses (status 429 or 413) while `refuse` says so; a dialer bootstrapped from it. */
  async function scripted() {
    const h = await limitedHub({});
    const state = { refuse: 0 as 0 | 413 | 429, once: false };
    const net = new Net();
    net.units.set(URL, wrapUnit(h.unit, async (method, _args, _ctx, next) => {
      if (method !== 'push' || !state.refuse) return next();
      const status = state.refuse;
      if (state.once) state.refuse = 0;
      throw new SyncomError(status === 429 ? 'OPS_PER_SECOND' : 'OPS_PER_PUSH', 'scripted', { status });
    }));
    const d = await dialer(net);
    const errors = record(d, 'error');
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    return { h, d, net, state, errors };
  }

  it('HOST-16 OPT-10: after a 429 what the host lacks is pushed from the vector at the next sign of life — a page from the host, an op to relay — or by sync()', async () => {
    const { h, d, state, errors } = await scripted();
    const lacks = () => internals(h.s).log.vector[d.id] ?? 0;
    // A page from the host is a sign of life.
    Object.assign(state, { refuse: 429, once: true });
    await d.insert({ refused: 1 });
    await waitFor(() => errors.length === 1, [d]);
    expect(errors[0]).toMatchObject({ code: 'OPS_PER_SECOND', status: 429, url: URL });
    expect(d.sync.peers()[0]).toMatchObject({ connected: true, behind: true, pending: 0 });
    expect(lacks()).toBe(0);
    await h.s.insert({ from: 'hub' });
    await waitFor(() => lacks() === 1 && !d.sync.peers()[0].behind, [d, h.s], 2000);
    // An op to relay is one too: the refused op goes with it.
    Object.assign(state, { refuse: 429, once: true });
    await d.insert({ refused: 2 });
    await waitFor(() => errors.length === 2 && d.sync.peers()[0].behind, [d]);
    expect(lacks()).toBe(1);
    await d.insert({ relayed: true });
    await waitFor(() => lacks() === 3, [d, h.s]);
    // And sync().
    Object.assign(state, { refuse: 429, once: true });
    await d.insert({ refused: 3 });
    await waitFor(() => errors.length === 3, [d]);
    await d.sync.sync();
    expect(lacks()).toBe(4);
    expect(d.sync.peers()[0].behind).toBe(false);
    expect(errors).toHaveLength(3);
    await closeAll(d, h.s);
  });

  it('HOST-17: a recovery that failed backs the next one off: 1 s, doubling, up to a minute', async () => {
    const { h, d, state, errors } = await scripted();
    Object.assign(state, { refuse: 413, once: false });
    await d.insert({ n: 1 });
    await waitFor(() => errors.length === 1, [d]);
    const dial = dialerOf(d, URL);
    expect(dial.backoff).toBe(0);
    const backoffs: number[] = [];
    for (let i = 0; i < 8; i++) {
      await d.sync.sync();
      backoffs.push(dial.backoff);
    }
    expect(backoffs).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    expect(errors).toHaveLength(9);
    // Backed off: a sign of life waits out the backoff before the next recovery.
    const id = await h.s.insert({ from: 'hub' });
    await until(() => d.has(id), [d]);
    await jest.advanceTimersByTimeAsync(59_999);
    expect(errors).toHaveLength(9);
    state.refuse = 0;
    await jest.advanceTimersByTimeAsync(1);
    await waitFor(() => (internals(h.s).log.vector[d.id] ?? 0) === 1, [d, h.s]);
    expect(dial.backoff).toBe(0);
    expect(d.sync.peers()[0].behind).toBe(false);
    await closeAll(d, h.s);
  });
});

import { internals } from '../../src/testing/internals';
import { createMemoryBackend, createMemoryLink, open, type Storage, type SyncomError } from '../../src';
import type { HostUnit } from '../../src/link';
import { FLAG_GRANTED } from '../../src/log/op-log';
import { opStreamKey } from '../../src/op/types';
import type { Dialer } from '../../src/sync/dial/dialer';
import { reconcileBootstrap } from '../../src/sync/dial/incremental-bootstrap';
import { pullChunks } from '../../src/socket.io/socket-io-stream';
import { closeAll, hub, node, until } from '../sync/helpers';

/**
 * A node that dials a hostile host. Only this node mints its own streams:
 * a host's vector (a snapshot's first page, a reconcile start answer, the
 * feed host's advance) never moves them, and a REWOUND claim at hello moves
 * them only to a seq the next own op can follow. A streamed snapshot page
 * holds at most `sync.maxPageBytes`, however long the host streams.
 */

const HONEST = 'memory://honest';
const HOSTILE = 'memory://hostile';
const MAX = Number.MAX_SAFE_INTEGER;

type Answer = (method: string, args: Record<string, unknown>, ans: Record<string, unknown>) => unknown;

/** A real unit whose answers pass through `answer` (a copy of each, which it may change). */
function rewrite(unit: HostUnit, answer: Answer): HostUnit {
  return {
    access: unit.access,
    async call(m, args, ctx) {
      const ans = await unit.call(m, args, ctx);
      return answer(m, (args ?? {}) as Record<string, unknown>, JSON.parse(JSON.stringify(ans ?? null)));
    },
    subscribe: (m, a, c, o) => unit.subscribe(m, a, c, o),
    stream: (id, c) => unit.stream(id, c),
    disconnect: (c) => unit.disconnect(c),
  };
}

/** A dialer reaching the given units by url, its sync errors and bootstraps collected. */
async function dialerOf(units: Record<string, HostUnit>, sync: Record<string, unknown> = {}) {
  const d = await node({ sync: { connect: (n: { url: string }) => createMemoryLink(units[n.url]), antiEntropyInterval: 0, ...sync } });
  const errors: SyncomError[] = [];
  const boots: string[] = [];
  d.sync.on('error', (e) => errors.push(e));
  d.sync.on('bootstrap', (e) => boots.push(e.url));
  return { d, errors, boots };
}

/** The seqs of this node's own stream, as logged. */
const ownSeqs = (s: Storage) => internals(s).log.read(0).filter((e) => e.op.origin === s.id && e.op.type !== 'advance' && e.op.type !== 'merge').map((e) => e.op.seq);

/** The seqs of every op of this node's main stream (writes and the merges anti-entropy logs there). */
const mainSeqs = (s: Storage) => internals(s).log.read(0).filter((e) => opStreamKey(e.op) === s.id).map((e) => e.op.seq);

/** The keys of this node's streams among the vectors of the advance ops it logged. */
const ownAdvanced = (s: Storage) => internals(s).log.read(0)
  .filter((e) => e.op.origin === s.id && e.op.type === 'advance')
  .flatMap((e) => Object.keys(e.op.vector ?? {}))
  .filter((k) => k.startsWith(s.id));

const dialer = (d: Storage, url: string) => (d.sync as unknown as { dialers: Map<string, Dialer> }).dialers.get(url) as Dialer;

describe('a hostile host cannot move the streams of the node that dials it', () => {
  it('BOOT-5 LOG-23 BOOT-9: a snapshot first page whose vector names this node\'s streams moves none of them; the next own op reaches an honest hub', async () => {
    const honest = await hub();
    const evil = await hub();
    await evil.s.insert({ theirs: 1 });
    let id = '';
    const poisoned = rewrite(evil.unit, (m, args, ans) => {
      if (m === 'snapshot' && args.token === undefined) {
        ans.vector = { ...(ans.vector as object), [id]: 1_000_000, [`${id}@doc`]: 1_000_000, [`${id}<${evil.s.id}`]: 1_000_000 };
      }
      return ans;
    });
    const { d, errors, boots } = await dialerOf({ [HONEST]: honest.unit, [HOSTILE]: poisoned });
    id = d.id;
    await d.sync.addNode({ url: HONEST, token: 't' });
    const a = await d.insert({ a: 1 });
    await until(async () => honest.s.has(a), [d, honest.s]);
    await d.sync.addNode({ url: HOSTILE, token: 't' });
    await until(() => boots.includes(HOSTILE), [d]);
    await internals(d).committer.idle();
    const v = internals(d).log.vector;
    expect([v[id], v[`${id}@doc`], (v[`${id}<${evil.s.id}`] ?? 0) < 1_000_000]).toEqual([1, undefined, true]);
    expect(ownAdvanced(d)).toEqual([]);
    // The host's other streams are adopted as before (BOOT-5).
    expect(v[evil.s.id]).toBe(1);
    const b = await d.insert({ b: 2 });
    expect(ownSeqs(d)).toEqual([1, 2]);
    await until(async () => honest.s.has(b), [d, honest.s]);
    expect(errors.map((e) => e.code)).toEqual([]);
    await closeAll(d, honest.s, evil.s);
  });

  it('BOOT-5 LOG-23 RECON: a reconcile start answer whose vector names this node\'s streams moves none of them', async () => {
    const evil = await hub();
    await evil.s.insert({ theirs: 1 });
    let id = '';
    const poisoned = rewrite(evil.unit, (m, args, ans) => {
      if (m === 'reconcile' && args.start === true) ans.vector = { ...(ans.vector as object), [id]: 1_000_000 };
      return ans;
    });
    const { d } = await dialerOf({ [HOSTILE]: poisoned });
    id = d.id;
    await d.sync.addNode({ url: HOSTILE, token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    await d.insert({ mine: 1 });
    await internals(d).committer.idle();
    const caught = await reconcileBootstrap(dialer(d, HOSTILE).reconcileRun());
    expect(caught.incremental).toBe(true);
    await internals(d).committer.idle();
    // The reconciliation logs merges of what the host lacks in the own stream: the vector is what those took.
    const minted = mainSeqs(d);
    expect(internals(d).log.vector[id]).toBe(minted.at(-1));
    expect(ownAdvanced(d)).toEqual([]);
    await d.insert({ mine: 2 });
    expect(mainSeqs(d)).toEqual([...minted, minted.length + 1]);
    await closeAll(d, evil.s);
  });

  it('BOOT-11 BOOT-12 LOG-23: a feed host\'s own advance naming this node\'s stream past its log is logged and relayed but grants nothing', async () => {
    const honest = await hub();
    const evil = await hub();
    const { d } = await dialerOf({ [HONEST]: honest.unit, [HOSTILE]: evil.unit });
    await d.sync.addNode({ url: HONEST, token: 't' });
    await d.sync.addNode({ url: HOSTILE, token: 't' });
    await until(() => d.sync.peers().every((p) => p.subscribed && p.connected), [d]);
    const a = await d.insert({ a: 1 });
    await until(async () => honest.s.has(a), [d, honest.s]);
    // The host signs an advance of its own (so it is the feed host's, BOOT-11) claiming a million of the dialer's ops.
    const op = evil.s.replica.makeOp({ type: 'advance', id: 'claim', vector: { [d.id]: 1_000_000, other: 7 } }, '*');
    await evil.s.replica.submit({ op, flags: 0, via: null });
    await until(() => internals(d).log.read(0).some((e) => e.op.origin === evil.s.id && e.op.type === 'advance'), [d]);
    const logged = internals(d).log.read(0).find((e) => e.op.origin === evil.s.id && e.op.type === 'advance');
    expect(logged!.flags & FLAG_GRANTED).toBe(0);
    expect([internals(d).log.vector[d.id], internals(d).log.vector.other]).toEqual([1, undefined]);
    const b = await d.insert({ b: 2 });
    expect(ownSeqs(d)).toEqual([1, 2]);
    await until(async () => honest.s.has(b), [d, honest.s]);
    await closeAll(d, honest.s, evil.s);
  });

  it.each([['the next own seq could not follow', MAX - 1], ['that leaves the stream two writes', MAX - 3], ['past 2^52', 2 ** 52 + 1]])('LOG-22 LOG-23: a REWOUND claim %s is refused BAD_ANSWER: no stream moves, and later own ops reach an honest hub', async (_what, claim) => {
    const honest = await hub();
    const evil = await hub();
    let id = '';
    const poisoned = rewrite(evil.unit, (m, _args, ans) => {
      if (m === 'hello') ans.vector = { ...(ans.vector as object), [id]: claim };
      return ans;
    });
    const { d, errors } = await dialerOf({ [HONEST]: honest.unit, [HOSTILE]: poisoned });
    id = d.id;
    await d.sync.addNode({ url: HONEST, token: 't' });
    const a = await d.insert({ a: 1 });
    await until(async () => honest.s.has(a), [d, honest.s]);
    await d.sync.addNode({ url: HOSTILE, token: 't' });
    await until(() => errors.length > 0, [d]);
    expect(errors.map((e) => [e.code, e.url, e.streams])).toEqual([['BAD_ANSWER', HOSTILE, { [id]: claim }]]);
    expect(internals(d).log.vector[id]).toBe(1);
    const b = await d.insert({ b: 2 });
    const c = await d.insert({ c: 3 });
    expect(ownSeqs(d)).toEqual([1, 2, 3]);
    await until(async () => (await honest.s.has(b)) && (await honest.s.has(c)), [d, honest.s]);
    expect(errors.some((e) => e.code === 'REWOUND')).toBe(false);
    await closeAll(d, honest.s, evil.s);
  });

  it('LOG-23: the op builder refuses a seq past MAX_SAFE_INTEGER (OP_INVALID) rather than mint two ops with one seq; a raise past 2^52 throws', async () => {
    const d = await node();
    for (const n of [MAX - 1, MAX - 2, 2 ** 52 + 1]) expect(() => d.replica.raiseOwnStreams({ [d.id]: n })).toThrow(RangeError);
    expect(d.replica.canRaiseOwnStream(2 ** 52)).toBe(true);
    // Only a log that came that far (no raise takes it there) meets the end of the seqs.
    internals(d).log.vector[d.id] = MAX - 2;
    internals(d).committer['pvec'][d.id] = MAX - 2;
    await d.insert({ n: 1 });
    await d.insert({ n: 2 });
    await expect(d.insert({ n: 3 })).rejects.toMatchObject({ code: 'OP_INVALID', stream: d.id });
    expect(ownSeqs(d)).toEqual([MAX - 1, MAX]);
    expect(internals(d).log.vector[d.id]).toBe(MAX);
    await closeAll(d);
  });

  it('LOG-22 LOG-23 BOOT-10: a restored directory whose host holds more of a stream it joined from another node (`<from`) reports REWOUND for it and moves it', async () => {
    const f = await hub();
    const h = await hub();
    for (let i = 0; i < 3; i++) await f.s.insert({ i });
    const units: Record<string, HostUnit> = { 'memory://f': f.unit, 'memory://h': h.unit };
    const connect = (n: { url: string }) => createMemoryLink(units[n.url]);
    const backend = createMemoryBackend();
    let d = await open({ path: 'd', backend, sync: { connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => d.sync.peers()[0]?.subscribed === true, [d]);
    const id = d.id;
    await d.close();
    const older = backend.snapshot();
    d = await open({ path: 'd', backend, sync: { connect, antiEntropyInterval: 0 } });
    await d.sync.addNode({ url: 'memory://f', token: 't' });
    const joined = `${id}<${f.s.id}`;
    // The merges joined from f run in their own stream, which goes to h (never back to f).
    await until(() => (internals(h.s).log.vector[joined] ?? 0) >= 4, [d, h.s]);
    await d.close();
    const r = await open({ path: 'd', backend: createMemoryBackend({ from: older }), sync: { connect, antiEntropyInterval: 0, autoStart: false } });
    const errors: SyncomError[] = [];
    r.sync.on('error', (e) => errors.push(e));
    expect(internals(r).log.vector[joined]).toBeUndefined();
    await r.sync.start();
    await until(() => errors.some((e) => e.code === 'REWOUND'), [r]);
    expect(errors.find((e) => e.code === 'REWOUND')!.streams).toEqual({ [joined]: internals(h.s).log.vector[joined] });
    expect(internals(r).log.vector[joined]).toBe(internals(h.s).log.vector[joined]);
    await closeAll(r, f.s, h.s);
  });
});

/** A snapshot whose first page is streamed under the given id, with nothing inline. */
function streamedSnapshot(unit: HostUnit, stream: (id: string) => AsyncIterable<Uint8Array>): HostUnit {
  return {
    ...rewrite(unit, (m, _args, ans) => (m === 'snapshot' ? { token: 'tok', next: null, total: 1, count: 1, stream: 'endless', vector: {}, eventId: ans.eventId } : ans)),
    stream: (id) => stream(id),
  };
}

const CHUNK = 64 * 1024;
/** A chunk of one JSON line that never ends. */
const pad = new TextEncoder().encode(`{"pad":"${'x'.repeat(CHUNK - 8)}`);

describe('a streamed snapshot page is bounded', () => {
  it('BOOT-3 BOOT-1: a host streaming past sync.maxPageBytes fails the page (PAGE_FAILED) at the bound, not at the end, and the event loop turns meanwhile', async () => {
    const evil = await hub();
    let streamed = 0;
    let turns = 0;
    let ticking = true;
    const tick = () => { turns++; if (ticking) setImmediate(tick); };
    const unit = streamedSnapshot(evil.unit, async function* () {
      // 8 MiB, then the end: without a bound the dialer reads all of it before it finds it is no JSON.
      for (let i = 0; i < 128; i++) { streamed += pad.byteLength; yield pad; }
    });
    const { d, errors } = await dialerOf({ [HOSTILE]: unit }, { maxPageBytes: 2 ** 20 });
    const first = new Promise<void>((resolve) => d.sync.on('error', () => resolve()));
    setImmediate(tick);
    await d.sync.addNode({ url: HOSTILE, token: 't' });
    await first;
    ticking = false;
    expect(errors.map((e) => [e.code, e.limit])).toEqual([['PAGE_FAILED', 2 ** 20]]);
    expect(streamed).toBeLessThanOrEqual(2 ** 20 + CHUNK);
    expect(turns).toBeGreaterThan(8);
    await closeAll(d, evil.s);
  });

  it('BOOT-3: a host streaming empty chunks reaches the bound too (each counts at least a kilobyte)', async () => {
    const evil = await hub();
    let chunks = 0;
    const unit = streamedSnapshot(evil.unit, async function* () {
      for (let i = 0; i < 100_000; i++) { chunks++; yield new Uint8Array(0); }
    });
    const { d, errors } = await dialerOf({ [HOSTILE]: unit }, { maxPageBytes: 64 * 1024 });
    await d.sync.addNode({ url: HOSTILE, token: 't' });
    await until(() => errors.length > 0, [d]);
    expect(errors.map((e) => e.code)).toEqual(['PAGE_FAILED']);
    expect(chunks).toBeLessThanOrEqual(65);
    await closeAll(d, evil.s);
  });

  it('BOOT-3 LINK-5: through the socket.io stream adapter, the bound stops the pulls and tells the host to drop the stream', async () => {
    const evil = await hub();
    let pulls = 0;
    let cancels = 0;
    const conn = {};
    const port = {
      connection: () => conn,
      send: async (_event: string, payload: unknown) => {
        if ((payload as { cancel?: boolean }).cancel) { cancels++; return null; }
        // 4 MiB, then done: without a bound every chunk is pulled and nothing is cancelled.
        return ++pulls > 64 ? { done: true } : { chunk: pad };
      },
    };
    const unit = streamedSnapshot(evil.unit, () => { throw new Error('pulled through the port'); });
    const connect = () => Object.assign(createMemoryLink(unit), { stream: (id: string) => pullChunks(id, port) });
    const d = await node({ sync: { connect, antiEntropyInterval: 0, maxPageBytes: 2 ** 20 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await d.sync.addNode({ url: HOSTILE, token: 't' });
    await until(() => errors.length > 0 && cancels > 0, [d]);
    expect(errors.map((e) => e.code)).toEqual(['PAGE_FAILED']);
    expect([pulls, cancels]).toEqual([17, 1]);
    await closeAll(d, evil.s);
  });

  it('BOOT-3: an honest host\'s streamed page (one record above its pageBytes) joins under the bound and fails over it', async () => {
    const h = await hub({ pageBytes: 1024 });
    const big = await h.s.insert({ text: 'y'.repeat(20_000) });
    const under = await dialerOf({ [HONEST]: h.unit }, { maxPageBytes: 64 * 1024 });
    await under.d.sync.addNode({ url: HONEST, token: 't' });
    await until(() => under.boots.length > 0, [under.d]);
    expect(await under.d.get(big)).toEqual({ text: 'y'.repeat(20_000) });
    const over = await dialerOf({ [HONEST]: h.unit }, { maxPageBytes: 8 * 1024 });
    await over.d.sync.addNode({ url: HONEST, token: 't' });
    await until(() => over.errors.length > 0, [over.d]);
    expect(over.errors.map((e) => e.code)).toEqual(['PAGE_FAILED']);
    expect(await over.d.has(big)).toBe(false);
    await closeAll(under.d, over.d, h.s);
  });
});

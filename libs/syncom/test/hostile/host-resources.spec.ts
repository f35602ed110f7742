import { internals } from '../../src/testing/internals';
import { unpackOps, type Storage } from '../../src';
import type { HostUnit, SubscribeOptions } from '../../src/link';
import { closeAll, hub, node } from '../sync/helpers';
import { craft, greet, helloOf, push, waitFor } from '../sync/scenario-helpers';

/** n write ops of p's, seqs from `from`. */
function writes(p: Storage, n: number, from = 1, data: Record<string, unknown> = {}) {
  return Array.from({ length: n }, (_, i) => craft(p, { type: 'write', id: `r${from + i}`, data: { i: from + i, ...data } }, '*', from + i));
}

/** A changes feed by hand whose pages are acknowledged only if `ack`; pages and errors collect. */
function feed(unit: HostUnit, context: object, ack: boolean, lastEventId?: string, onPage?: () => void) {
  const pages: { ops?: unknown }[] = [];
  const errors: { status?: number; code?: string }[] = [];
  const options: SubscribeOptions = {
    lastEventId,
    onData: (value) => {
      pages.push(value as { ops?: unknown });
      onPage?.();
      return ack ? undefined : new Promise<void>(() => undefined);
    },
    onError: (e) => void errors.push(e as { status?: number }),
  };
  return { pages, errors, sub: unit.subscribe('changes', {}, context, options) };
}

/** A macrotask: the unit tells refusals and ended feeds in microtasks. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

const tokens = (...allowed: string[]) => (_c: object, hello: { token?: string }) => allowed.includes(hello.token as string);

describe('hostile: a host unit\'s per-peer state (limits, pagings, frames, sessions)', () => {
  it('HOST-7 HOST-12: a token holder greeting with a victim\'s node id drains its own bucket, never the victim\'s', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ limits: { opsPerSecond: 5 }, authorize: tokens('victim', 'mallory') }, { now: () => clock.t });
    const victim = await node();
    const ops = writes(victim, 10);
    const mine = await greet(h.unit, victim, ['*'], { token: 'victim' });
    const theirs = await greet(h.unit, victim, ['*'], { token: 'mallory' });
    await expect(push(h.unit, theirs, ops.slice(0, 5))).resolves.toMatchObject({ applied: 5 });
    await expect(push(h.unit, theirs, ops.slice(5, 6))).rejects.toMatchObject({ code: 'OPS_PER_SECOND', status: 429 });
    await expect(push(h.unit, mine, ops.slice(5, 10))).resolves.toMatchObject({ applied: 5 });
    // A token's connections share its bucket: more sockets buy no more rate.
    const again = await greet(h.unit, victim, ['*'], { token: 'victim' });
    await expect(push(h.unit, again, writes(victim, 1, 11))).rejects.toMatchObject({ status: 429 });
    await closeAll(h.s, victim);
  });

  it('HOST-12: without an authorize a token is only a claim: each connection has its own bucket', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ limits: { opsPerSecond: 3 }, authorize: undefined }, { now: () => clock.t });
    const p = await node();
    const ops = writes(p, 6);
    const a = await greet(h.unit, p, ['*'], { token: 'same' });
    const b = await greet(h.unit, p, ['*'], { token: 'same' });
    await expect(push(h.unit, a, ops.slice(0, 3))).resolves.toMatchObject({ applied: 3 });
    await expect(push(h.unit, a, ops.slice(3, 4))).rejects.toMatchObject({ status: 429 });
    await expect(push(h.unit, b, ops.slice(3, 6))).resolves.toMatchObject({ applied: 3 });
    await closeAll(h.s, p);
  });

  it('PROTO-7 BOOT-2: 800 abandoned first pages keep at most maxPagings pagings; disconnect frees a connection\'s, the last page its own', async () => {
    const clock = { t: Date.now() };
    // Forty peers, each its own token: one token's pagings are held to a share of the unit's (test/hostile/paging-share.spec.ts).
    const h = await hub({ pageSize: 2, maxPagings: 16, maxPagingsPerConnection: 3, authorize: () => true }, { now: () => clock.t });
    for (let i = 0; i < 10; i++) await h.s.insert({ i });
    const p = await node();
    const contexts: object[] = [];
    for (let c = 0; c < 40; c++) {
      // Each connection abandons its pagings: by the next one's turn they have been idle past 30 s.
      clock.t += 31_000;
      const ctx = await greet(h.unit, p, ['*'], { token: `t${c}` });
      contexts.push(ctx);
      for (let i = 0; i < 20; i++) await h.unit.call('snapshot', {}, ctx);
      expect(h.unit.usage().pagings).toBeLessThanOrEqual(16);
    }
    expect(h.unit.usage().pagings).toBe(16);
    for (const ctx of contexts) h.unit.disconnect(ctx);
    expect(h.unit.usage().pagings).toBe(0);
    const ctx = await greet(h.unit, p);
    let page = (await h.unit.call('snapshot', {}, ctx)) as { token: string; next: number | null };
    expect(h.unit.usage().pagings).toBe(1);
    while (page.next !== null) page = (await h.unit.call('snapshot', { token: page.token, offset: page.next }, ctx)) as typeof page;
    expect(h.unit.usage().pagings).toBe(0);
    await closeAll(h.s, p);
  });

  it('PROTO-7: at the unit\'s cap a paging in use is not evicted: the new one is refused 503 SNAPSHOT_BUSY until one is idle 30 s', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ pageSize: 1, maxPagings: 4, maxPagingsPerConnection: 2, authorize: () => true }, { now: () => clock.t });
    for (let i = 0; i < 3; i++) await h.s.insert({ i });
    const p = await node();
    const busy = [await greet(h.unit, p, ['*'], { token: 'a' }), await greet(h.unit, p, ['*'], { token: 'b' })];
    for (const ctx of busy) for (let i = 0; i < 2; i++) await h.unit.call('snapshot', {}, ctx);
    const late = await greet(h.unit, p, ['*'], { token: 'c' });
    await expect(h.unit.call('snapshot', {}, late)).rejects.toMatchObject({ code: 'SNAPSHOT_BUSY', status: 503 });
    clock.t += 30_000;
    await expect(h.unit.call('snapshot', {}, late)).resolves.toMatchObject({ next: 1 });
    expect(h.unit.usage().pagings).toBe(4);
    await closeAll(h.s, p);
  });

  it('PROTO-7 SCOPE-20: a paging token is refused on another connection and under another session (404 SNAPSHOT_NOT_FOUND)', async () => {
    const h = await hub({ pageSize: 1 });
    await h.s.insert({ a: 1 });
    await h.s.insert({ a: 2 });
    const p = await node();
    const owner = await greet(h.unit, p);
    const first = (await h.unit.call('snapshot', {}, owner)) as { token: string; next: number };
    const thief = await greet(h.unit, p, ['B']);
    const args = { token: first.token, offset: first.next };
    await expect(h.unit.call('snapshot', args, thief)).rejects.toMatchObject({ code: 'SNAPSHOT_NOT_FOUND', status: 404 });
    const mine = await greet(h.unit, p);
    const second = (await h.unit.call('snapshot', {}, mine)) as { token: string; next: number };
    await greet(h.unit, p, ['B'], { token: 't' }, mine);
    await expect(h.unit.call('snapshot', { token: second.token, offset: second.next }, mine)).rejects.toMatchObject({ status: 410 });
    await expect(h.unit.call('snapshot', args, owner)).resolves.toMatchObject({ token: first.token, next: null });
    await closeAll(h.s, p);
  });

  it('SCOPE-20 BOOT-2: a record moved out of the paging\'s scopes after its first page is not served by a later page', async () => {
    const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
    const h = await hub({ pageSize: 1 }, { sync: { scope: typed } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await h.s.insert({ $type: 'A', i }));
    ids.sort();
    const p = await node();
    const ctx = await greet(h.unit, p, ['A']);
    type Page = { token: string; next: number | null; entries: { id: string }[] };
    let page = (await h.unit.call('snapshot', {}, ctx)) as Page;
    const served = page.entries.map((e) => e.id);
    await h.s.update(ids[3], { $type: 'B', secret: 'of B' });
    while (page.next !== null) {
      page = (await h.unit.call('snapshot', { token: page.token, offset: page.next }, ctx)) as Page;
      served.push(...page.entries.map((e) => e.id));
    }
    expect(served).toEqual(ids.slice(0, 3));
    await closeAll(h.s, p);
  });

  it('many subscribers that never acknowledge hold the unit under its byte budget; one that acknowledges gets every page', async () => {
    const budget = 64 * 1024;
    const pageBytes = 2048;
    const h = await hub({ pageSize: 10, pageBytes, maxInFlightBytes: budget });
    const p = await node();
    const idle = Array.from({ length: 200 }, () => ({}));
    const from = internals(h.s).log.eventId(internals(h.s).log.head);
    const feeds = await Promise.all(idle.map(async (ctx) => feed(h.unit, await greet(h.unit, p, ['*'], { token: 't' }, ctx), false, from)));
    // Its pages may come after the last write's events (each feed waits its turn in the host's slices): each page
    // re-checks, in a macrotask so the page's ack is in.
    let recheck = () => undefined as void;
    const honest = feed(h.unit, await greet(h.unit, p), true, from, () => recheck());
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push(await h.s.insert({ i, pad: 'x'.repeat(100) }));
    const got = () => honest.pages.flatMap((pg) => unpackOps(pg.ops).ops.map((o) => o.id));
    const all = new Promise<void>((resolve) => (recheck = () => void (got().length === ids.length && setImmediate(resolve))));
    recheck();
    await all;
    expect(got()).toEqual(ids);
    // The budget, plus at most one frame for each connection that had none out.
    expect(h.unit.usage().inFlightBytes).toBeLessThanOrEqual(budget + 201 * pageBytes);
    // The idle ones start at one position: their frames are mostly the same pages, held (and counted) once (how
    // many feeds read the log at one head, before the next insert lands, depends on the slices' timing).
    const frames = feeds.flatMap((f) => f.pages);
    expect(new Set(frames).size * 2).toBeLessThan(frames.length);
    for (const ctx of idle) h.unit.disconnect(ctx);
    expect(h.unit.usage().inFlightBytes).toBe(0);
    await closeAll(h.s, p);
  });

  it('one connection holds at most maxFeedsPerConnection feeds; one more is refused 429 TOO_MANY_FEEDS', async () => {
    const h = await hub({ maxFeedsPerConnection: 2 });
    const p = await node();
    const ctx = await greet(h.unit, p);
    const at = internals(h.s).log.eventId(internals(h.s).log.head);
    const a = feed(h.unit, ctx, true, at);
    feed(h.unit, ctx, true, at);
    const c = feed(h.unit, ctx, true, at);
    await tick();
    expect(c.errors).toHaveLength(1);
    expect(c.errors[0]).toMatchObject({ code: 'TOO_MANY_FEEDS', status: 429 });
    a.sub.unsubscribe();
    const d = feed(h.unit, ctx, true, at);
    await tick();
    expect(d.errors).toEqual([]);
    expect(h.unit.usage().feeds).toBe(2);
    await closeAll(h.s, p);
  });

  const refusals: [string, (p: Storage) => unknown, Record<string, unknown>][] = [
    ['UNAUTHORIZED', (p) => helloOf(p, ['*'], { token: 'wrong' }), {}],
    ['INCOMPATIBLE', (p) => helloOf(p, ['*'], { token: 't', versions: [99] }), {}],
    ['BAD_HELLO', () => ({ node: 42 }), {}],
    ['UNSIGNED', (p) => helloOf(p, ['*'], { token: 't', node: 'not-a-key' }), { sync: { signatures: 'require' } }],
  ];
  it.each(refusals)('HOST-3 HOST-21: a re-hello refused %s ends the earlier session: its feed ends 428, its next push is 428', async (code, hello, options) => {
    const h = await hub({}, options);
    const p = await node(options);
    const ctx = await greet(h.unit, p);
    const f = feed(h.unit, ctx, true, internals(h.s).log.eventId(internals(h.s).log.head));
    expect(h.unit.usage().feeds).toBe(1);
    await expect(h.unit.call('hello', hello(p), ctx)).rejects.toMatchObject({ code });
    await tick();
    expect(f.errors).toHaveLength(1);
    expect(f.errors[0]).toMatchObject({ code: 'HELLO_REQUIRED', status: 428 });
    expect(h.unit.usage().feeds).toBe(0);
    await expect(push(h.unit, ctx, writes(p, 1))).rejects.toMatchObject({ status: 428 });
    await closeAll(h.s, p);
  });
});

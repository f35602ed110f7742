import type { Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { streamKey } from '../../src/op/types';
import { MAX_READ_BYTES, type SharedReads } from '../../src/sync/host/shared-pages';
import { checkHello } from '../../src/sync/protocol/hello';
import { isScopeName, keyOrigin, keyScope } from '../../src/sync/protocol/scopes';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';
import { craft, greet, helloOf, push } from '../sync/scenario-helpers';

/**
 * Scope names a peer hands in (hello, changes, snapshot) are held to one
 * rule, 1-128 characters without '<', at most 1,024 of them; the changes
 * feeds' shared reads count the scope lists they keep. Before: a peer
 * granted '*' subscribing again and again with one long made-up name
 * pinned up to 4,096 keys holding it (1 GiB with 256 KiB names), and a
 * name holding '<' made its streams' keys read as another scope's.
 */

const team = (_id: string, d: Record<string, unknown>) => (typeof d.team === 'string' ? d.team : '*');

type Page = { ops?: unknown[] };
type Opened = { pages: Page[]; errors: unknown[]; close(): void };

/** A changes feed of `ctx` from the start of the log, its pages and errors collected. */
async function changes(unit: HostUnit, s: Storage, ctx: object, args: unknown): Promise<Opened> {
  const pages: Page[] = [];
  const errors: unknown[] = [];
  const sub = unit.subscribe('changes', args, ctx, {
    lastEventId: `${internals(s).log.epoch}.0`,
    onData: (p: unknown) => void pages.push(p as Page),
    onError: (e: unknown) => void errors.push(e),
  } as never);
  // The feed reads and sends, or the refusal comes, within a turn.
  await new Promise((r) => setImmediate(r));
  return { pages, errors, close: () => sub.unsubscribe() };
}

const opsIn = (pages: Page[]) => pages.reduce((n, p) => n + (p.ops?.length ?? 0), 0);
const badRequest = { code: 'BAD_REQUEST', status: 400 };
const readsOf = (unit: HostUnit) => (unit as unknown as { reads: SharedReads }).reads;

describe('hostile: scope names a peer hands in', () => {
  const open: Storage[] = [];
  afterEach(async () => closeAll(...open.splice(0)));

  async function hubOf(scoped = false) {
    const h = await hub({}, scoped ? { sync: { scope: team } } : {});
    open.push(h.s);
    return h;
  }

  async function peer(): Promise<Storage> {
    const p = await node({ sync: { scope: team } });
    open.push(p);
    return p;
  }

  it('SCOPE-20 SCOPE-23 PROTO-6 PROTO-7: a changes or snapshot call naming a scope over 128 characters, over 1,024 scopes or no list is refused 400 BAD_REQUEST, as hello is', async () => {
    const h = await hubOf();
    await h.s.insert({ title: 'one' });
    const ctx = await greet(h.unit, await peer(), ['*']);
    const long = 'x'.repeat(129);
    const many = Array.from({ length: 1025 }, (_, i) => `s${i}`);
    for (const scopes of [[long], many, 'one', [''], [1]]) {
      const feed = await changes(h.unit, h.s, ctx, { scopes });
      expect(feed.errors).toEqual([expect.objectContaining(badRequest)]);
      expect(feed.pages).toEqual([]);
      await expect(h.unit.call('snapshot', { scopes }, ctx)).rejects.toMatchObject(badRequest);
    }
    expect(() => checkHello(helloOf(h.s, [long]))).toThrow(expect.objectContaining({ code: 'BAD_HELLO', status: 400 }));
    // The longest name and the most names are served.
    const fits = await changes(h.unit, h.s, ctx, { scopes: ['x'.repeat(128), ...many.slice(2)] });
    expect([fits.errors, opsIn(fits.pages)]).toEqual([[], 1]);
    fits.close();
    expect(await h.unit.call('snapshot', { scopes: ['x'.repeat(128)] }, ctx)).toMatchObject({ count: 1 });
  });

  it('SCOPE-20 SCOPE-23: the shared reads of changes feeds count the scope lists they keep: 150 lists of 1,024 names of 128 characters hold at most MAX_READ_BYTES', async () => {
    const h = await hubOf();
    await h.s.insert({ title: 'one record, so each feed has a page to read' });
    const ctx = await greet(h.unit, await peer(), ['*']);
    const rounds = 150;
    const listOf = (round: number) => Array.from({ length: 1024 }, (_, i) => `${round}.${i}.`.padEnd(128, 'x'));
    // What one list's text holds in memory at most (two bytes a character), as the key of a read held it before.
    const weight = 2 * JSON.stringify(listOf(rounds)).length;
    let sent = 0;
    for (let round = 0; round < rounds; round++) {
      const feed = await changes(h.unit, h.s, ctx, { scopes: listOf(round) });
      expect(feed.errors).toEqual([]);
      sent += opsIn(feed.pages);
      feed.close();
    }
    expect(sent).toBe(rounds);
    const reads = readsOf(h.unit);
    // Each kept read was made for a list of its own, whose text it keeps: the count covers it, and the bound holds it.
    expect(reads.bytes).toBeGreaterThanOrEqual(reads.size * weight);
    expect(reads.bytes).toBeLessThanOrEqual(MAX_READ_BYTES + weight);
    expect(reads.size * weight).toBeLessThanOrEqual(MAX_READ_BYTES + weight);
    expect(reads.size).toBeGreaterThan(1);
  });

  it("SCOPE-20 SCOPE-23: lists whose names join alike are distinct reads; a name with a control character is refused", async () => {
    const h = await hubOf(true);
    await h.s.insert({ team: 'a' });
    await h.s.insert({ team: 'b' });
    const all = await changes(h.unit, h.s, await greet(h.unit, await peer(), ['*']), { scopes: ['a', 'b'] });
    expect(opsIn(all.pages)).toBe(2);
    // A name holding a control character is no scope name now (it would forge a log line): refused at hello.
    await expect(greet(h.unit, await peer(), ['a\u0000b'])).rejects.toMatchObject({ code: 'BAD_HELLO', status: 400 });
    // And the reads are keyed by their lists' JSON, not their names joined: a granted 'a,b' reads no read of 'a' and 'b'.
    const odd = await changes(h.unit, h.s, await greet(h.unit, await peer(), ['a,b']), {});
    expect([odd.errors, opsIn(odd.pages)]).toEqual([[], 0]);
    all.close();
    odd.close();
  });

  it("SCOPE-26 LOG-10: a scope name holding '<' is refused in hello, changes and snapshot, so no stream key reads as another scope's", async () => {
    const h = await hubOf(true);
    const writer = await peer();
    // A stream key's scope ends at its first '<' (`<from`): 'a<x' would read back as scope 'a', joined from x.
    expect(keyScope(streamKey(writer.id, 'a<x'))).toBe('a');
    const wctx = {};
    await expect(greet(h.unit, writer, ['a<x'], { token: 't' }, wctx)).rejects.toMatchObject({ code: 'BAD_HELLO', status: 400 });
    // Refused, the hello opened no session: the writer cannot push ops of scope 'a<x'.
    const pushed = await push(h.unit, wctx, [craft(writer, { type: 'write', id: 'w1', data: { team: 'a<x' } }, 'a<x', 1)]).catch((e: unknown) => e);
    expect(pushed).toMatchObject({ status: 428 });
    expect(internals(h.s).log.vector[`${writer.id}@a<x`]).toBeUndefined();
    // A peer of scope 'a' is shown no stream of the writer.
    const answer = (await h.unit.call('hello', helloOf(await peer(), ['a'], { token: 't' }), {})) as { vector: Record<string, number> };
    expect(Object.keys(answer.vector).filter((k) => keyOrigin(k) === writer.id)).toEqual([]);
    const ctx = await greet(h.unit, await peer(), ['*']);
    const feed = await changes(h.unit, h.s, ctx, { scopes: ['a<x'] });
    expect(feed.errors).toEqual([expect.objectContaining(badRequest)]);
    await expect(h.unit.call('snapshot', { scopes: ['a', 'a<x'] }, ctx)).rejects.toMatchObject(badRequest);
    expect([isScopeName('a<x'), isScopeName('<'), isScopeName('a'), isScopeName('x'.repeat(129)), isScopeName('')]).toEqual([false, false, true, false, false]);
  });

  it("SCOPE-20 LOG-10: a scope name holding '@' (an e-mail address) is a name: its streams' keys read back as their own scope, never served to another", async () => {
    const h = await hubOf(true);
    const writer = await peer();
    const mail = 'team@example.com';
    const wctx = await greet(h.unit, writer, [mail]);
    const op = craft(writer, { type: 'write', id: 'm1', data: { team: mail } }, mail, 1);
    expect(await push(h.unit, wctx, [op])).toMatchObject({ applied: 1 });
    const key = streamKey(writer.id, mail);
    expect([keyOrigin(key), keyScope(key), internals(h.s).log.vector[key]]).toEqual([writer.id, mail, 1]);
    const vectorOf = async (scopes: string[]) => ((await h.unit.call('hello', helloOf(await peer(), scopes, { token: 't' }), {})) as { vector: Record<string, number> }).vector;
    expect((await vectorOf(['team']))[key]).toBeUndefined();
    expect((await vectorOf([mail]))[key]).toBe(1);
    const ctx = await greet(h.unit, await peer(), ['team']);
    const page = (await h.unit.call('snapshot', {}, ctx)) as { vector: Record<string, number>; count: number };
    expect([page.vector[key], page.count]).toEqual([undefined, 0]);
  });
});

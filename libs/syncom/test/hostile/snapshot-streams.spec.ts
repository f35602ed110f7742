import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMemoryLink, type SyncomError } from '../../src';
import type { HostUnit } from '../../src/link';
import { closeAll, hub, node, records, until } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

type Page = { token: string; next: number | null; stream?: string };

/** A stream's whole text, pulled on `context`. */
async function pull(unit: HostUnit, id: string, context: object): Promise<string> {
  let text = '';
  for await (const chunk of unit.stream(id, context)) text += Buffer.from(chunk).toString('utf8');
  return text;
}

/**
 * `n` streamed pages asked and left unread, four per connection (the
 * per-connection cap), each from a first page (or `at` its offset): the
 * stream ids kept, the refusals' status and code, the connections.
 */
async function keepStreams(unit: HostUnit, n: number, greetOne: () => Promise<object>, at = 0) {
  const kept: string[] = [];
  const refused: string[] = [];
  const contexts: object[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 4 === 0) contexts.push(await greetOne());
    const ctx = contexts[contexts.length - 1];
    let page: Page;
    try {
      const token = at > 0 ? ((await unit.call('snapshot', {}, ctx)) as Page).token : undefined;
      page = (await unit.call('snapshot', { token, offset: at, stream: true }, ctx)) as Page;
    } catch (e) {
      refused.push(`${(e as SyncomError).status} ${(e as SyncomError).code}`);
      continue;
    }
    if (page.stream === undefined) throw new Error('the page asked was not streamed');
    kept.push(page.stream);
  }
  return { kept, refused, contexts };
}

/** A full collection, where the heap can be measured: node's gc, exposed at run time. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * A token of its own for each connection: these are many peers at the unit's
 * caps; what one token may hold of them is test/hostile/paging-share.spec.ts's.
 */
let tokens = 0;
const fresh = () => `t${tokens++}`;

const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');

describe('hostile: snapshot streams a peer asks for and does not read', () => {
  it('BOOT-3 HOST-6: 64 unread streams of a 1 MiB record pin none of its text (they pinned a copy each); only a chunk out is held, counted in usage().inFlightBytes', async () => {
    const h = await hub({ pageBytes: 64 * 1024, authorize: () => true });
    await h.s.insert({ blob: 'x'.repeat(1 << 20) });
    const p = await node();
    const gc = collector();
    gc();
    const before = process.memoryUsage().heapUsed;
    const { kept, refused, contexts } = await keepStreams(h.unit, 64, () => greet(h.unit, p, ['*'], { token: fresh() }));
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect([kept.length, refused]).toEqual([64, []]);
    expect(h.unit.usage()).toMatchObject({ streams: 64, inFlightBytes: 0 });
    // 64 copies were 64 MiB; what is left is the ids and sizes of 64 one-record pages (and the heap's noise).
    expect(held).toBeLessThan(8 << 20);
    // A chunk pulled is built then, and held (counted) until the consumer asks for the next one.
    const chunks = h.unit.stream(kept[0], contexts[0])[Symbol.asyncIterator]();
    const first = await chunks.next();
    expect(first.done).toBe(false);
    expect(h.unit.usage().inFlightBytes).toBe((first.value as Uint8Array).length);
    expect((await chunks.next()).done).toBe(true);
    expect(h.unit.usage().inFlightBytes).toBe(0);
    await closeAll(h.s, p);
  });

  it('BOOT-3 SCOPE-20: a kept stream holds its page\'s ids, not their text: at the pull a record changed since comes as it is then, one moved out of the session\'s scopes since does not come', async () => {
    const h = await hub({ pageBytes: 1024, authorize: () => true }, { sync: { scope: typed } });
    const [x, y] = [await h.s.insert({ $type: 'A', n: 'x'.repeat(4096) }), await h.s.insert({ $type: 'A', n: 'y'.repeat(4096) })].sort();
    const p = await node();
    const ctx = await greet(h.unit, p, ['A']);
    // Each record is above pageBytes: a page of its own, streamed.
    const first = (await h.unit.call('snapshot', { stream: true }, ctx)) as Page;
    const second = (await h.unit.call('snapshot', { token: first.token, offset: first.next, stream: true }, ctx)) as Page;
    expect([first.next, second.next, typeof first.stream, typeof second.stream]).toEqual([1, null, 'string', 'string']);
    await h.s.update(x, { n: 'changed' });
    await h.s.update(y, { $type: 'B', secret: 'of B' });
    const text = await pull(h.unit, first.stream as string, ctx);
    expect(JSON.parse(text)).toMatchObject({ id: x });
    expect([text.includes('changed'), text.includes('x'.repeat(4096))]).toEqual([true, false]);
    expect(await pull(h.unit, second.stream as string, ctx)).toBe('');
    await closeAll(h.s, p);
  });

  it('PROTO-7 BOOT-3: an honest dialer\'s stream survives 64 fresh streams of an attacker on 16 connections: past the unit\'s cap theirs are refused 503 SNAPSHOT_BUSY, and the honest pull succeeds', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ pageBytes: 64 * 1024, authorize: () => true }, { now: () => clock.t });
    await h.s.insert({ blob: 'x'.repeat(200 * 1024) });
    const [honest, attacker] = [await node(), await node()];
    const hctx = await greet(h.unit, honest);
    const page = (await h.unit.call('snapshot', { stream: true }, hctx)) as Page;
    // One round trip later (the clock barely moved): the attacker's 64.
    clock.t += 80;
    const { kept, refused } = await keepStreams(h.unit, 64, () => greet(h.unit, attacker, ['*'], { token: fresh() }));
    expect([kept.length, refused]).toEqual([63, ['503 SNAPSHOT_BUSY']]);
    expect((await pull(h.unit, page.stream as string, hctx)).length).toBeGreaterThan(200 * 1024);
    await closeAll(h.s, honest, attacker);
  });

  it('PROTO-7 BOOT-3: at the unit\'s cap a stream kept under 30 s ago is not evicted: the 65th is refused 503 SNAPSHOT_BUSY until the oldest has been idle 30 s, which then goes (404 STREAM_NOT_FOUND)', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ pageBytes: 1024, authorize: () => true }, { now: () => clock.t });
    await h.s.insert({ blob: 'x'.repeat(4096) });
    const p = await node();
    const { kept, contexts } = await keepStreams(h.unit, 64, async () => {
      clock.t += 1000;
      return greet(h.unit, p, ['*'], { token: fresh() });
    });
    expect(h.unit.usage().streams).toBe(64);
    const late = await greet(h.unit, p, ['*'], { token: fresh() });
    await expect(h.unit.call('snapshot', { stream: true }, late)).rejects.toMatchObject({ code: 'SNAPSHOT_BUSY', status: 503 });
    // The refused first page left no paging behind.
    expect(h.unit.usage()).toMatchObject({ pagings: 0, streams: 64 });
    clock.t += 30_000 - 16 * 1000;
    await expect(h.unit.call('snapshot', { stream: true }, late)).rejects.toMatchObject({ code: 'SNAPSHOT_BUSY' });
    clock.t += 1000;
    await expect(h.unit.call('snapshot', { stream: true }, late)).resolves.toMatchObject({ stream: expect.any(String) });
    expect(h.unit.usage().streams).toBe(64);
    await expect(pull(h.unit, kept[0], contexts[0])).rejects.toMatchObject({ code: 'STREAM_NOT_FOUND', status: 404 });
    expect((await pull(h.unit, kept[4], contexts[1])).length).toBeGreaterThan(4096);
    await closeAll(h.s, p);
  });

  it('PROTO-7: a later page whose stream is refused 503 leaves its paging where it was: asked again once a stream is idle 30 s, it streams', async () => {
    const clock = { t: Date.now() };
    const h = await hub({ pageSize: 1, pageBytes: 1024, maxPagings: 4, maxPagingsPerConnection: 4, authorize: () => true }, { now: () => clock.t });
    await h.s.set('a1', { i: 1 });
    await h.s.set('b2', { blob: 'x'.repeat(4096) });
    const p = await node();
    const ctx = await greet(h.unit, p, ['*'], { token: fresh() });
    const first = (await h.unit.call('snapshot', { stream: true }, ctx)) as Page & { entries: unknown[] };
    expect([first.next, first.entries.length]).toEqual([1, 1]);
    // Four streams of b2 (the unit's cap), kept a moment ago.
    expect((await keepStreams(h.unit, 4, () => greet(h.unit, p, ['*'], { token: fresh() }), 1)).kept).toHaveLength(4);
    const args = { token: first.token, offset: 1, stream: true };
    await expect(h.unit.call('snapshot', args, ctx)).rejects.toMatchObject({ code: 'SNAPSHOT_BUSY', status: 503 });
    expect(h.unit.usage()).toMatchObject({ pagings: 1, streams: 4 });
    clock.t += 30_000;
    const page = (await h.unit.call('snapshot', args, ctx)) as Page;
    expect([page.next, h.unit.usage().pagings]).toEqual([null, 0]);
    expect((await pull(h.unit, page.stream as string, ctx)).length).toBeGreaterThan(4096);
    await closeAll(h.s, p);
  });

  it('BOOT-3 LINK-5: a dialer bootstrapping a record above pageBytes completes though, between its page and its pull, an attacker asks 64 streams on 16 connections', async () => {
    const h = await hub({ pageBytes: 64 * 1024, authorize: () => true });
    // The large record last in id order: its page (the last, a stream) ends its paging, the attacker's too.
    for (let i = 0; i < 3; i++) await h.s.set(`a${i}`, { i });
    await h.s.set('z-big', { blob: 'x'.repeat(200 * 1024) });
    const attacker = await node();
    let flood: Awaited<ReturnType<typeof keepStreams>> | undefined;
    const unit = h.unit;
    // The host's unit, with the attacker's 64 asks run as soon as the dialer's streamed page is answered.
    const racing: HostUnit = {
      access: unit.access,
      call: async (method, args, context) => {
        const answer = await unit.call(method, args, context);
        if (method === 'snapshot' && (answer as Page).stream && !flood) flood = await keepStreams(unit, 64, () => greet(unit, attacker, ['*'], { token: fresh() }), 3);
        return answer;
      },
      subscribe: (method, args, context, options) => unit.subscribe(method, args, context, options),
      stream: (id, context) => unit.stream(id, context),
      disconnect: (context) => unit.disconnect(context),
    };
    const d = await node({ sync: { connect: () => createMemoryLink(racing), antiEntropyInterval: 0 } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => void errors.push(e));
    await d.sync.addNode({ url: 'memory://hub', token: 't' });
    await until(async () => errors.length > 0 || (await records(d)).length === 4, [d, h.s]);
    expect(errors).toEqual([]);
    expect(flood).toMatchObject({ refused: ['503 SNAPSHOT_BUSY'] });
    expect(flood?.kept).toHaveLength(63);
    expect(await records(d)).toEqual(await records(h.s));
    await closeAll(d, h.s, attacker);
  });
});

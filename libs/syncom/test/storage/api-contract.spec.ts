import { createMemoryBackend, createMemoryLink, isSyncomError, open, type OpenOptions, type Storage } from '../../src';
import { type Op, verifyOps } from '../../src/op';
import { logOps, node } from './helpers';

/**
 * The storage API as docs/api.md states it, called wrongly as a third party
 * might: each wrong call is a SyncomError with a stable code, never a bare
 * TypeError, a silent answer as if nothing were wrong, or a write made of it.
 */

/** The code a call failed with (or 'resolved'), and that nothing was logged meanwhile. */
async function codeOf(s: Storage, call: () => unknown): Promise<string> {
  const logged = logOps(s).length;
  const outcome = await Promise.resolve().then(call).then(() => 'resolved', (e: unknown) => (isSyncomError(e) ? e.code : `not a SyncomError: ${String(e)}`));
  expect(logOps(s).length).toBe(logged);
  return outcome;
}

/** Ids no record can have: what a wrong call passes where a record id goes. */
const BAD_IDS: unknown[] = [42, null, undefined, {}, '', 'x'.repeat(10_000_000), () => 'r', new Date(0)];

describe('the storage API contract under wrong calls', () => {
  it('get(), has() and record() of something that is no record id are INVALID_ARGUMENT, as the writes answer it, not a silent miss', async () => {
    const { s } = await node();
    await s.set('r', { a: 1 });
    for (const id of BAD_IDS) {
      for (const read of [s.get, s.has, s.record, s.delete, s.inc]) {
        expect([read.name, await codeOf(s, () => (read as (id: unknown) => unknown).call(s, id))]).toEqual([read.name, 'INVALID_ARGUMENT']);
      }
    }
    // Called as documented, each answers its shape.
    expect(await s.get('r')).toEqual({ a: 1 });
    expect(await s.has('r')).toBe(true);
    expect(await s.get('missing')).toBeUndefined();
    expect(await s.has('missing')).toBe(false);
    expect(await s.record('missing')).toBeUndefined();
    const h = await s.record('r');
    expect([h?.id, h?.data, Object.keys(h?.meta ?? {}).sort()]).toEqual(['r', { a: 1 }, ['scope', 'ts']]);
    await s.close();
  });

  it("scopeOf() and isSealed() of something that is no record id are INVALID_ARGUMENT, not '*' and false as for an id never placed", async () => {
    const { s } = await node();
    await s.set('r', { a: 1 });
    for (const id of BAD_IDS) {
      for (const read of [s.scopeOf, s.isSealed]) {
        expect([read.name, await codeOf(s, () => (read as (id: unknown) => unknown).call(s, id))]).toEqual([read.name, 'INVALID_ARGUMENT']);
      }
    }
    expect([s.scopeOf('r'), s.isSealed('r'), s.scopeOf('never-placed')]).toEqual(['*', false, '*']);
    await s.close();
  });

  it('LINK-10: createMemoryLink() of something that is no host unit (null, a storage itself) is INVALID_ARGUMENT at once, not a TypeError at the first call', async () => {
    const { s } = await node();
    for (const unit of [null, undefined, {}, s]) {
      expect(await codeOf(s, () => createMemoryLink(unit as never))).toBe('INVALID_ARGUMENT');
    }
    expect(typeof createMemoryLink(s.sync.unit({ access: 'public' })).call).toBe('function');
    await s.close();
  });

  it('a record handle whose data was replaced by something that is no plain object (a Date, a Map, null) saves nothing and says so: INVALID_ARGUMENT', async () => {
    const { s } = await node();
    await s.set('r', { a: 1 });
    for (const data of [new Date(0), new Map([['a', 2]]), null, [1]]) {
      const h = await s.record('r');
      (h as { data: unknown }).data = data;
      expect(await codeOf(s, () => h?.save())).toBe('INVALID_ARGUMENT');
    }
    expect(await s.get('r')).toEqual({ a: 1 });
    await s.close();
  });

  it("a write's options with an unknown key ({ seald: true }) or that are an array are INVALID_ARGUMENT: nothing is written, in clear or at all", async () => {
    const { s } = await node();
    await s.set('r', { a: 1 });
    const replicated: string[] = [];
    s.on('change', (op) => replicated.push(op.id));
    const wrong: unknown[] = [{ seald: true }, { sealed: true, extra: 1 }, { Actor: 'u' }, [], ['sealed']];
    for (const options of wrong) {
      expect(await codeOf(s, () => s.insert({ pin: '1234' }, options as never))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(s, () => s.update('r', { a: 2 }, options as never))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(s, () => s.inc('r', 'n', 1, options as never))).toBe('INVALID_ARGUMENT');
    }
    expect(replicated).toEqual([]);
    expect(await s.get('r')).toEqual({ a: 1 });
    // The documented options, and an option set to undefined (no option), still write.
    const id = await s.insert({ pin: '1234' }, { sealed: true, actor: 'u' });
    expect([s.isSealed(id), (await s.record(id))?.meta.sealed]).toEqual([true, true]);
    await s.update('r', { a: 3 }, { actor: undefined, sealed: false });
    expect(await s.get('r')).toEqual({ a: 3 });
    await s.close();
  });

  it('list() answers at most `limit` records; a fractional limit, an unknown option (limt) or an array of options is INVALID_ARGUMENT, not a longer page', async () => {
    const { s } = await node();
    for (const id of ['a', 'b', 'c', 'd']) await s.set(id, { id });
    const ids = async (o: Parameters<Storage['list']>[0]) => (await s.list(o)).map((r) => r.id);
    expect(await ids({ limit: 2 })).toEqual(['a', 'b']);
    expect(await ids({ limit: 2, after: 'b' })).toEqual(['c', 'd']);
    expect(await ids({ limit: Infinity, scope: '*', after: undefined })).toEqual(['a', 'b', 'c', 'd']);
    expect(await ids({ limit: 0 })).toEqual([]);
    const [first] = await s.list({ limit: 1 });
    expect([Object.keys(first).sort(), Object.keys(first.meta).sort()]).toEqual([['data', 'id', 'meta'], ['scope', 'ts']]);
    const wrong: unknown[] = [{ limit: 2.5 }, { limit: 0.5 }, { limit: NaN }, { limit: -1 }, { limit: -Infinity }, { limt: 1 }, { scope: '*', page: 2 }, [], null, 5];
    for (const o of wrong) expect([o, await codeOf(s, () => s.list(o as never))]).toEqual([o, 'INVALID_ARGUMENT']);
    await s.close();
  });

  it("LIFE-20: on() of an event that does not exist ('chnage') or with a listener that is no function is INVALID_ARGUMENT, for storage and storage.sync alike", async () => {
    const { s } = await node();
    const throws = (call: () => unknown) => codeOf(s, call);
    for (const on of [s.on.bind(s), s.sync.on.bind(s.sync)] as ((event: unknown, listener: unknown) => unknown)[]) {
      expect(await throws(() => on('chnage', () => undefined))).toBe('INVALID_ARGUMENT');
      expect(await throws(() => on('toString', () => undefined))).toBe('INVALID_ARGUMENT');
      expect(await throws(() => on(42, () => undefined))).toBe('INVALID_ARGUMENT');
      expect(await throws(() => on('error', 'log it'))).toBe('INVALID_ARGUMENT');
      expect(await throws(() => on('error', null))).toBe('INVALID_ARGUMENT');
    }
    // Every documented event takes a listener, and on() answers the function that removes it.
    const seen: string[] = [];
    for (const event of ['change', 'apply', 'log', 'error', 'schema'] as const) expect(typeof s.on(event, () => seen.push(event))).toBe('function');
    for (const event of ['peer', 'sync', 'bootstrap', 'progress', 'error', 'refused', 'limited', 'start', 'stop', 'node', 'connect', 'incompatible', 'hello'] as const) {
      expect(typeof s.sync.on(event, () => undefined)).toBe('function');
    }
    await s.set('r', { a: 1 });
    expect(seen).toEqual(['change']);
    await s.close();
  });

  it("open() refuses a backend object that lacks a Backend's methods, and a misspelt key of schema (tpyeField) or telemetry, with INVALID_ARGUMENT naming the option", async () => {
    const refusal = (options: unknown) => open(options as OpenOptions).then(
      async (s) => { await s.close(); return 'opened'; },
      (e: unknown) => (isSyncomError(e, 'INVALID_ARGUMENT') ? e.option : `not INVALID_ARGUMENT: ${String(e)}`),
    );
    const { read, write, list } = createMemoryBackend();
    expect(await refusal({ path: 'b', backend: {} })).toBe('backend');
    expect(await refusal({ path: 'b', backend: { read, write, list } })).toBe('backend');
    expect(await refusal({ path: 'b', backend: 'memory', schema: { version: 1, types: {}, tpyeField: 'kind' } })).toBe('schema.tpyeField');
    expect(await refusal({ path: 'b', backend: 'memory', telemetry: { tracer: {} } })).toBe('telemetry');
    // As documented, they open.
    expect(await refusal({ path: 'b', backend: createMemoryBackend(), schema: { version: 1, types: {}, typeField: 'kind', ahead: 'apply' }, telemetry: {} })).toBe('opened');
  });

  it('LIFE-20: a change listener that edits the op it is handed changes neither the logged op, nor the record, nor what the next listener sees; off() still removes it', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'edit', backend });
    const edit = (op: Op) => {
      const data = op.data as Record<string, unknown> | undefined;
      if (!data) return;
      delete data.pin;
      (data.nested as { y: unknown }).y = 'edited';
    };
    const seen: unknown[] = [];
    s.on('change', edit);
    const stop = s.on('change', (op) => seen.push(op.data));
    await s.set('r', { pin: '1234', nested: { y: 1 } });
    const want = { nested: { y: 1 }, pin: '1234' };
    expect(seen).toEqual([want]);
    expect(await s.get('r')).toEqual(want);
    const [logged] = logOps(s);
    expect(logged.data).toEqual(want);
    expect(await verifyOps([logged])).toEqual(['ok']);
    s.off('change', edit);
    stop();
    await s.set('q', { a: 1 });
    expect(seen).toHaveLength(1);
    await s.close();
    const again = await open({ path: 'edit', backend });
    expect(await again.get('r')).toEqual(want);
    await again.close();
  });
});

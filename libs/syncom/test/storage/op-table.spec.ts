import { internals } from '../../src/testing/internals';
import { applyOp, joinEntries } from '../../src';
import type { Entry } from '../../src/crdt';
import { logOps, node, ship } from './helpers';

const lastOp = (s: Parameters<typeof logOps>[0]) => logOps(s).at(-1)!;

describe('the op table (Operations)', () => {
  it('OPS-1 OPS-3: insert(), set() and saveData() make a write op that replaces the record', async () => {
    const { s } = await node();
    const id = await s.insert({ a: 1, b: 2 });
    expect(lastOp(s)).toMatchObject({ type: 'write', id, data: { a: 1, b: 2 } });
    await s.set(id, { c: 3 });
    expect(lastOp(s).type).toBe('write');
    expect(await s.get(id)).toEqual({ c: 3 });
    await s.saveData(id, { d: 4 });
    expect(lastOp(s).type).toBe('write');
    expect(await s.get(id)).toEqual({ d: 4 });
  });

  it('OPS-4: update(), swap() and record.save() make a set op that replaces only the listed fields', async () => {
    const { s } = await node();
    const id = await s.insert({ a: 1, b: 2 });
    await s.update(id, { a: 10 });
    expect(lastOp(s)).toMatchObject({ type: 'set', data: { a: 10 } });
    expect(await s.get(id)).toEqual({ a: 10, b: 2 });
    expect(await s.swap(id, { b: 20 })).toEqual({ b: 2 });
    expect(lastOp(s).type).toBe('set');
    const r = (await s.record(id))!;
    r.data.a = 100;
    await r.save();
    expect(lastOp(s)).toMatchObject({ type: 'set', data: { a: 100 } });
    expect(await s.get(id)).toEqual({ a: 100, b: 20 });
  });

  it('OPS-5 OPS-6 OPS-7: inc(), add() and remove() make inc, add and remove ops; so do the record handle calls', async () => {
    const { s } = await node();
    const id = await s.insert({ t: 'x' });
    await s.inc(id, 'views', 2);
    expect(lastOp(s)).toMatchObject({ type: 'inc', key: 'views', value: 2 });
    await s.add(id, 'tags', ['a', 'b']);
    expect(lastOp(s)).toMatchObject({ type: 'add', key: 'tags', value: ['a', 'b'] });
    await s.remove(id, 'tags', ['a']);
    expect(lastOp(s)).toMatchObject({ type: 'remove', key: 'tags' });
    const r = (await s.record(id))!;
    await r.inc('views');
    await r.add('tags', ['c']);
    await r.remove('tags', ['b']);
    expect(logOps(s).slice(-3).map((o) => o.type)).toEqual(['inc', 'add', 'remove']);
    expect(await s.get(id)).toEqual({ t: 'x', views: 3, tags: ['c'] });
  });

  it('OPS-8 RESET-4: delete() leaves a tombstone: get() nothing, has() false, list() omits it', async () => {
    const { s } = await node();
    const id = await s.insert({ a: 1 });
    const other = await s.insert({ b: 1 });
    await s.delete(id);
    expect(lastOp(s)).toMatchObject({ type: 'delete', id });
    expect(await s.get(id)).toBeUndefined();
    expect(await s.has(id)).toBe(false);
    expect((await s.list()).map((r) => r.id)).toEqual([other]);
    expect(internals(s).committer.committed.get(id)?.del).toBe(true);
    const r = (await s.record(other))!;
    await r.delete();
    expect(await s.has(other)).toBe(false);
  });

  it('OPS-9 OPS-10: purge() wins at any stamp, against ops of the id stamped later, and nothing later lands', async () => {
    const a = await node(1_000);
    const b = await node(5_000);
    const id = 'rec';
    await a.s.set(id, { v: 1 });
    await ship(a.s, b.s);
    await b.s.update(id, { v: 2 });
    await a.s.purge(id);
    expect(lastOp(a.s).ts).toBeLessThan(lastOp(b.s).ts);
    await ship(b.s, a.s);
    await ship(a.s, b.s);
    for (const n of [a, b]) {
      expect(await n.s.get(id)).toBeUndefined();
      expect(internals(n.s).committer.committed.get(id)?.purged).toBeDefined();
    }
    await expect(a.s.set(id, { v: 3 })).rejects.toMatchObject({ code: 'PURGED' });
  });

  it('OPS-12: a merge op joins a whole entry into the local record', () => {
    const e1 = applyOp(undefined, { origin: 'A', seq: 1, ts: 10, type: 'write', id: 'r', data: { a: 1 } }).entry;
    const e2 = applyOp(undefined, { origin: 'B', seq: 1, ts: 20, type: 'set', id: 'r', data: { b: 2 } }).entry;
    const merged = applyOp(e1, { origin: 'C', seq: 1, ts: 30, type: 'merge', id: 'r', data: e2 as unknown as Record<string, unknown> }).entry;
    expect(merged).toEqual(joinEntries(e1, e2));
    expect(Object.keys(merged.fields).sort()).toEqual(['a', 'b']);
  });

  it('OPS-13: an advance op records a vector and leaves records alone', () => {
    const before: Entry | undefined = undefined;
    const r = applyOp(before, { origin: 'C', seq: 1, ts: 30, type: 'advance', id: 'H', vector: { A: 3 } });
    expect(r.entry.fields).toEqual({});
    expect(r.refused).toEqual([]);
  });

  it('OPS-14 OPS-15 OPS-16: origin is the node id, seq its sequence number, v its schema version (absent without a schema)', async () => {
    const { s } = await node();
    await s.insert({ a: 1 });
    await s.insert({ a: 2 });
    const ops = logOps(s);
    expect(ops.map((o) => [o.origin, o.seq])).toEqual([[s.id, 1], [s.id, 2]]);
    expect(ops[0].v).toBeUndefined();
    class Note { title?: string }
    const v = await node(1, { schema: { version: 3, types: { Note } } });
    await v.s.insert({ $type: 'Note', title: 'x' });
    expect(lastOp(v.s).v).toBe(3);
  });

  it('OPS-17: a record keeps the schema version of its last whole-record write as meta.v', async () => {
    class Note { title?: string }
    const { s } = await node(1, { schema: { version: 2, types: { Note } } });
    const id = await s.insert({ $type: 'Note', title: 'x' });
    expect((await s.list())[0].meta.v).toBe(2);
    expect((await s.record(id))!.meta.v).toBe(2);
  });

  it('OPS-18 OPS-19 OPS-20 OPS-21: actor from open(), a function per write, the write\'s own (which wins), or none', async () => {
    const plain = await node();
    await plain.s.insert({ a: 1 });
    expect('actor' in lastOp(plain.s)).toBe(false);
    const fixed = await node(1, { actor: 'alice' });
    await fixed.s.insert({ a: 1 });
    expect(lastOp(fixed.s).actor).toBe('alice');
    await fixed.s.insert({ a: 1 }, { actor: 'bob' });
    expect(lastOp(fixed.s).actor).toBe('bob');
    let user = 'carol';
    const fn = await node(1, { actor: () => user });
    await fn.s.insert({ a: 1 });
    user = 'dave';
    await fn.s.insert({ a: 2 });
    expect(logOps(fn.s).map((o) => o.actor)).toEqual(['carol', 'dave']);
  });

  it('OPS-22 OPS-23: actor rides into the log, the peer\'s log and change events, never into the record', async () => {
    const a = await node(1, { actor: 'alice' });
    const b = await node(1);
    const seen: unknown[] = [];
    b.s.on('change', (op) => seen.push(op.actor));
    const id = await a.s.insert({ a: 1 });
    await ship(a.s, b.s);
    expect(lastOp(b.s).actor).toBe('alice');
    expect(seen).toEqual(['alice']);
    expect(await b.s.get(id)).toEqual({ a: 1 });
    expect((await b.s.list())[0].data).toEqual({ a: 1 });
  });
});

import { keyedEntries, keyedGet } from '../../src/crdt';
import { internals } from '../../src/testing/internals';
import { errors, logOps, node, ship } from './helpers';

describe('registers, counters and sets', () => {
  it('KIND-9: the spec example — title a register, views a counter at 1, tags [bug]; update of title succeeds', async () => {
    const { s } = await node();
    const id = await s.insert({ title: 'Draft' });
    await s.inc(id, 'views', 1);
    await s.add(id, 'tags', ['bug', 'ui']);
    await s.remove(id, 'tags', ['ui']);
    expect(await s.get(id)).toEqual({ title: 'Draft', views: 1, tags: ['bug'] });
    await s.update(id, { title: 'Final' });
    expect(await s.get(id)).toEqual({ title: 'Final', views: 1, tags: ['bug'] });
  });

  it('KIND-1 KIND-10 KIND-11 KIND-12: the wrong call throws, naming the field and the right call', async () => {
    const { s } = await node();
    const id = await s.insert({ title: 'Draft' });
    await s.inc(id, 'views', 1);
    await s.add(id, 'tags', ['bug']);
    const before = logOps(s).length;
    await expect(s.update(id, { views: 10 })).rejects.toThrow('views is a counter; use inc()');
    await expect(s.update(id, { tags: [] })).rejects.toThrow('tags is a set; use add() or remove()');
    await expect(s.inc(id, 'title', 1)).rejects.toThrow('title is a register; use update()');
    await expect(s.update(id, { views: 10 })).rejects.toMatchObject({ code: 'KIND_CLASH', field: 'views' });
    expect(logOps(s).length).toBe(before);
  });

  it('KIND-13: add()/remove() on a register or counter and inc() on a set throw too', async () => {
    const { s } = await node();
    const id = await s.insert({ title: 'Draft' });
    await s.inc(id, 'views');
    await s.add(id, 'tags', ['x']);
    await expect(s.add(id, 'title', ['a'])).rejects.toThrow('title is a register; use update()');
    await expect(s.remove(id, 'views', ['a'])).rejects.toThrow('views is a counter; use inc()');
    await expect(s.add(id, 'views', ['a'])).rejects.toThrow('views is a counter; use inc()');
    await expect(s.inc(id, 'tags')).rejects.toThrow('tags is a set; use add() or remove()');
  });

  it('KIND-14: inc() creates a counter and add() a set on a field that does not exist', async () => {
    const { s } = await node();
    const id = await s.insert({});
    await s.inc(id, 'n', 5);
    await s.add(id, 'tags', ['a']);
    const e = internals(s).committer.committed.get(id)!;
    expect(keyedGet(e.fields, 'n')?.k).toBe('c');
    expect(keyedGet(e.fields, 'tags')?.k).toBe('s');
  });

  it('KIND-15: insert({ views: 0 }) and insert({ tags: [] }) make registers, so inc()/add() then throw', async () => {
    const { s } = await node();
    const id = await s.insert({ views: 0, tags: [] });
    await expect(s.inc(id, 'views', 1)).rejects.toThrow('views is a register; use update()');
    await expect(s.add(id, 'tags', ['a'])).rejects.toThrow('tags is a register; use update()');
  });

  it('KIND-16: a validator default (tags: []) is folded into the write and makes a register', async () => {
    class Note {
      title?: string;
      tags: string[] = [];
    }
    const { s } = await node(1, { schema: { version: 1, types: { Note } } });
    const id = await s.insert({ $type: 'Note', title: 'x' });
    expect(await s.get(id)).toEqual({ $type: 'Note', title: 'x', tags: [] });
    await expect(s.add(id, 'tags', ['a'])).rejects.toThrow('tags is a register; use update()');
  });

  it('KIND-2 KIND-3 KIND-4 KIND-5: concurrent register writes agree by (ts, origin); counters sum per origin; adds keep both', async () => {
    const a = await node(1_000);
    const b = await node(2_000);
    await a.s.set('r', { title: 'x' });
    await ship(a.s, b.s);
    await a.s.update('r', { title: 'from a' });
    await b.s.update('r', { title: 'from b' });
    await a.s.inc('r', 'views', 1);
    await b.s.inc('r', 'views', 1);
    await a.s.add('r', 'tags', ['a']);
    await b.s.add('r', 'tags', ['b']);
    await ship(a.s, b.s);
    await ship(b.s, a.s);
    for (const n of [a, b]) expect(await n.s.get('r')).toEqual({ title: 'from b', views: 2, tags: ['a', 'b'] });
    const views = keyedGet(internals(a.s).committer.committed.get('r')!.fields, 'views');
    expect(views?.k === 'c' && keyedEntries(views.by).map(([k]) => k).sort()).toEqual([a.s.id, b.s.id].sort());
  });

  it('KIND-6 KIND-7: a remove names the add tags it saw; a concurrent re-add survives on both nodes', async () => {
    const a = await node(1_000);
    const b = await node(1_000);
    await a.s.set('r', {});
    await a.s.add('r', 'tags', ['x']);
    await ship(a.s, b.s);
    await a.s.remove('r', 'tags', ['x']);
    const remove = logOps(a.s).at(-1)!;
    const addTag = `${logOps(a.s)[1].ts}:${a.s.id}`;
    expect(remove.value).toEqual([['x', [addTag]]]);
    await b.s.add('r', 'tags', ['x']);
    await ship(a.s, b.s);
    await ship(b.s, a.s);
    for (const n of [a, b]) expect(await n.s.get('r')).toEqual({ tags: ['x'] });
  });

  it('KIND-8 KIND-18 KIND-19: sets read sorted by JSON text; 1 and "1", {a,b} and {b,a} are distinct elements', async () => {
    const { s } = await node();
    const id = await s.insert({});
    await s.add(id, 'set', ['b', 1, '1', { a: 1, b: 2 }, { b: 2, a: 1 }, 'a', 1]);
    const got = (await s.get(id))!.set as unknown[];
    expect(got.map((x) => JSON.stringify(x))).toEqual(['"1"', '"a"', '"b"', '1', '{"a":1,"b":2}', '{"b":2,"a":1}']);
  });

  it('KIND-20: a remove of an element never seen makes no op', async () => {
    const { s } = await node();
    const id = await s.insert({});
    await s.add(id, 'tags', ['a']);
    const n = logOps(s).length;
    const changes: unknown[] = [];
    s.on('change', (op) => changes.push(op));
    await s.remove(id, 'tags', ['zzz']);
    await s.remove('no-such-record', 'tags', ['a']);
    expect(logOps(s).length).toBe(n);
    expect(changes).toEqual([]);
  });

  it('KIND-17: a peer op that breaks a field kind is refused for that field (OP_REFUSED); the rest applies', async () => {
    const a = await node(1_000);
    const b = await node(2_000);
    await a.s.set('r', { x: 1 });
    await ship(a.s, b.s);
    await b.s.inc('r', 'views', 1);
    await a.s.update('r', { views: 5, title: 'kept' });
    const errs = errors(b.s);
    const res = await ship(a.s, b.s);
    expect(res.applied).toBe(1);
    expect(errs).toEqual([expect.objectContaining({ code: 'OP_REFUSED', field: 'views' })]);
    expect(await b.s.get('r')).toEqual({ x: 1, views: 1, title: 'kept' });
  });
});

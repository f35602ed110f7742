import { type Op, type OpenOptions, scopeByField } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node, seeded } from '../sync/helpers';
import { craft, greet, push } from '../sync/scenario-helpers';
import { touchedBy } from './work-meter';

// The modules work-meter.ts spies on, as plain copies every importer shares: jest's transform (swc)
// exports a module's functions as getters that jest.spyOn cannot replace.
jest.mock('../../src/crdt/keyed', () => ({ __esModule: true, ...jest.requireActual<object>('../../src/crdt/keyed') }));
jest.mock('../../src/crdt/tags', () => ({ __esModule: true, ...jest.requireActual<object>('../../src/crdt/tags') }));

/**
 * What a token holder's ops cost the host once a record is large
 * (docs/security.md, A token holder): each op costs the size of the op, not
 * of the record's map it touches. Before, every op copied that map: 400
 * one-element adds to a set of 100,000 took 40 s of the host's loop, and
 * 20,000 incs from as many origins ran the heap out of memory; each add of
 * an element added before copied its tag list (20,000 adds of one element:
 * 38 s); and a merge op of one element walked every element of the record
 * it joined (400 of them: 11 s), as did a write that pruned nothing of it
 * (400 writes: 11 s). Each push here counts the entries of maps walked or
 * copied (touchedBy): a few walks of the large map over the whole push at
 * most, where an op that walks or copies it makes the count grow with the
 * ops times the map.
 */
const WALKS = 8;

/** Push `ops`, checking they touched fewer entries than WALKS walks of a map of `size`; the push's answer. */
async function pushWithin(unit: Parameters<typeof push>[0], ctx: object, ops: Op[], size: number): Promise<Record<string, unknown>> {
  const { value, touched } = await touchedBy(() => push(unit, ctx, ops));
  expect(touched).toBeLessThan(WALKS * size);
  return value;
}

/** A merge op of `id` adding one element, `m<i>`, to its set `tags` at `ts` (`more`: the entry's other members). */
const elementMerge = (z: ReturnType<typeof stream>, id: string, i: number, ts: number, more: object = {}): Op =>
  z({ type: 'merge', id, data: { id, latest: [ts, 'z'], ...more, fields: { tags: { k: 's', el: { [`"m${i}"`]: { add: [`${ts}:z`], rem: [] } } } } } as never }, ts);

const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');

async function setup(unit: { exactScopes?: boolean } = {}, options: Partial<OpenOptions> = {}, scopes = ['*']) {
  const h = await hub(unit, options);
  const writer = await node();
  const ctx = await greet(h.unit, writer, scopes);
  let seq = 0;
  const op = (body: Pick<Op, 'type' | 'id'> & Partial<Op>, scope = '*') => craft(writer, body, scope, ++seq);
  return { h, writer, ctx, op };
}

/**
 * Unsigned ops of one origin's stream, taken under 'verify' (the default):
 * seqs counted from 1, each op at `ts`, by default its seq's ms after `t0`.
 */
function stream(origin: string, t0 = Date.now() - 60_000) {
  let seq = 0;
  return (body: Partial<Op>, ts = t0 + seq + 1): Op => ({ origin, ...body, seq: ++seq, ts }) as Op;
}

describe('hostile: the cost of an op on a large record', () => {
  it('KIND-5 KIND-6 GUAR-3: 400 one-element adds and a remove to a set of 100,000 elements, in one push, touch a bounded number of entries and all land', async () => {
    const { h, writer, ctx, op } = await setup();
    const big = op({ type: 'add', id: 'r', key: 'tags', value: Array.from({ length: 100_000 }, (_, i) => `e${i}`) });
    expect(await push(h.unit, ctx, [big])).toMatchObject({ applied: 1 });
    const adds = Array.from({ length: 400 }, (_, i) => op({ type: 'add', id: 'r', key: 'tags', value: [`x${i}`] }));
    const removes = [op({ type: 'remove', id: 'r', key: 'tags', value: [['e7', [`${big.ts}:${writer.id}`]]] })];
    expect(await pushWithin(h.unit, ctx, [...adds, ...removes], 100_000)).toMatchObject({ applied: 401 });
    const tags = (await h.s.get('r'))?.tags as string[];
    expect(tags.length).toBe(100_399);
    expect(tags.includes('x399')).toBe(true);
    expect(tags.includes('e7')).toBe(false);
    await closeAll(h.s, writer);
  });

  it('GUAR-3 GUAR-7 KIND-5: one-element adds to a set of 100,000, each in its own push, write the element to the record files, not the set, and a reopen reads the set whole', async () => {
    const backend = await seeded();
    const { h, writer, ctx, op } = await setup({}, { backend, path: 'big' });
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    expect(await push(h.unit, ctx, [op({ type: 'add', id: 'r', key: 'tags', value: big })])).toMatchObject({ applied: 1 });
    await h.s.replica.idle();
    const whole = [...backend.files()].filter(([p]) => p.startsWith('records/')).reduce((n, [, t]) => n + t.length, 0);
    const write = jest.spyOn(backend, 'write');
    for (let i = 0; i < 100; i++) expect(await push(h.unit, ctx, [op({ type: 'add', id: 'r', key: 'tags', value: [`x${i}`] })])).toMatchObject({ applied: 1 });
    await h.s.replica.idle();
    // Each push wrote its element (about 430 bytes here, merges of those included): before, the set (9 MB) each time.
    const written = write.mock.calls.filter(([p]) => p.startsWith('records/')).reduce((n, [, t]) => n + t.length, 0);
    expect(whole).toBeGreaterThan(1_000_000);
    expect(written).toBeLessThan(100 * 2048);
    await h.s.close();
    const again = await node({ backend, path: 'big' });
    expect(((await again.get('r'))?.tags as string[]).length).toBe(100_100);
    await closeAll(again, writer);
  });

  it('GUAR-3 GUAR-7 KIND-2: small writes beside 30 fields of 100 KB each, each in its own push, write the field written to the record files, not the record, and a reopen reads it whole', async () => {
    const backend = await seeded();
    const { h, writer, ctx, op } = await setup({}, { backend, path: 'wide' });
    const fields = Array.from({ length: 30 }, (_, i) => op({ type: 'set', id: 'r', data: { [`f${i}`]: `${i}${'y'.repeat(100_000)}` } }));
    expect(await push(h.unit, ctx, fields)).toMatchObject({ applied: 30 });
    await h.s.replica.idle();
    const write = jest.spyOn(backend, 'write');
    for (let i = 0; i < 100; i++) expect(await push(h.unit, ctx, [op({ type: 'set', id: 'r', data: { n: i } })])).toMatchObject({ applied: 1 });
    await h.s.replica.idle();
    // Each push wrote its field (a few hundred bytes, merges of those included): before, the record (3 MB) each time.
    const written = write.mock.calls.filter(([p]) => p.startsWith('records/')).reduce((n, [, t]) => n + t.length, 0);
    expect(written).toBeLessThan(100 * 2048);
    await h.s.close();
    const again = await node({ backend, path: 'wide' });
    const got = await again.get('r');
    expect(got?.n).toBe(99);
    expect(String(got?.f29).length).toBe(100_002);
    expect(Object.keys(got ?? {}).filter((k) => k.startsWith('f'))).toHaveLength(30);
    await closeAll(again, writer);
  });

  it('KIND-3 GUAR-3: 20,000 incs of one counter from as many origins (a slot each) touch a bounded number of entries and sum', async () => {
    const { h, writer, ctx } = await setup();
    const incs = Array.from({ length: 20_000 }, (_, i) => stream(`o${i}`)({ type: 'inc', id: 'c', key: 'n', value: 1 }));
    expect(await pushWithin(h.unit, ctx, incs, 20_000)).toMatchObject({ applied: 20_000 });
    expect(await h.s.get('c')).toEqual({ n: 20_000 });
    await closeAll(h.s, writer);
  });

  it('KIND-5 GUAR-3: 20,000 adds of one element (a tag each) in one push touch a bounded number of entries', async () => {
    const { h, writer, ctx } = await setup();
    const z = stream('z');
    const adds = Array.from({ length: 20_000 }, () => z({ type: 'add', id: 'a', key: 'tags', value: ['same'] }));
    expect(await pushWithin(h.unit, ctx, adds, 20_000)).toMatchObject({ applied: 20_000 });
    expect(await h.s.get('a')).toEqual({ tags: ['same'] });
    await closeAll(h.s, writer);
  });

  it('BOOT-7 GUAR-3: 400 merge ops of one element each into a written record holding a set of 100,000 touch a bounded number of entries', async () => {
    const { h, writer, ctx } = await setup();
    const t0 = Date.now() - 60_000;
    const z = stream('z', t0);
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    const write = z({ type: 'write', id: 'm', data: { title: 't' } });
    expect(await push(h.unit, ctx, [write, z({ type: 'add', id: 'm', key: 'tags', value: big })])).toMatchObject({ applied: 2 });
    const reset = [write.ts, 'z'];
    const merges = Array.from({ length: 400 }, (_, i) => {
      const ts = t0 + 1000 + i;
      return elementMerge(z, 'm', i, ts, { reset });
    });
    expect(await pushWithin(h.unit, ctx, merges, 100_000)).toMatchObject({ applied: 400 });
    expect(((await h.s.get('m'))?.tags as string[]).length).toBe(100_400);
    await closeAll(h.s, writer);
  });

  it('RESET-10 GUAR-3: 400 merge ops each clashing a register with a set of 100,000 elements (the set winning), between merges adding an element, touch a bounded number of entries', async () => {
    const { h, writer, ctx } = await setup();
    const t0 = Date.now() - 60_000;
    const z = stream('z', t0);
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    expect(await push(h.unit, ctx, [z({ type: 'add', id: 'k', key: 'tags', value: big }, t0 + 1000)])).toMatchObject({ applied: 1 });
    // Each clash is settled by the newest stamp each side holds; the set's changes between them, so no answer kept for the set as it was serves the next.
    const merges = Array.from({ length: 400 }, (_, i) => {
      const ts = t0 + 2000 + 2 * i;
      const grow = elementMerge(z, 'k', i, ts);
      const clash = z({ type: 'merge', id: 'k', data: { id: 'k', latest: [ts + 1, 'z'], fields: { tags: { k: 'r', s: [t0 + 1, 'z'], val: i } } } as never }, ts + 1);
      return [grow, clash];
    }).flat();
    // Before, each clash walked the set and every tag of it to find its newest stamp: 400 walks of 100,000.
    expect(await pushWithin(h.unit, ctx, merges, 100_000)).toMatchObject({ applied: 800 });
    expect(((await h.s.get('k'))?.tags as string[]).length).toBe(100_400);
    await closeAll(h.s, writer);
  });

  it('RESET-10 GUAR-3: 400 merge ops each clashing a register with a counter of 20,000 slots, between incs, touch a bounded number of entries', async () => {
    const { h, writer, ctx } = await setup();
    const t0 = Date.now() - 60_000;
    const incs = Array.from({ length: 20_000 }, (_, i) => stream(`o${i}`, t0)({ type: 'inc', id: 'c', key: 'n', value: 1 }, t0 + 1000));
    expect(await push(h.unit, ctx, incs)).toMatchObject({ applied: 20_000 });
    const z = stream('z', t0);
    const ops = Array.from({ length: 400 }, (_, i) => {
      const ts = t0 + 2000 + 2 * i;
      return [
        z({ type: 'inc', id: 'c', key: 'n', value: 1 }, ts),
        z({ type: 'merge', id: 'c', data: { id: 'c', latest: [ts + 1, 'z'], fields: { n: { k: 'r', s: [t0 + 1, 'z'], val: i } } } as never }, ts + 1),
      ];
    }).flat();
    expect(await pushWithin(h.unit, ctx, ops, 20_000)).toMatchObject({ applied: 800 });
    expect(await h.s.get('c')).toEqual({ n: 20_400 });
    await closeAll(h.s, writer);
  });

  it('RESET-1 GUAR-3: 400 writes, each older than every element of a set of 100,000 (pruning none), touch a bounded number of entries', async () => {
    const { h, writer, ctx } = await setup();
    const t0 = Date.now() - 60_000;
    const z = stream('z', t0);
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    expect(await push(h.unit, ctx, [z({ type: 'add', id: 'w', key: 'tags', value: big }, t0 + 1000)])).toMatchObject({ applied: 1 });
    // A stream's ts may go back (another clock): each write resets the record at its own, older than the set.
    const writes = Array.from({ length: 400 }, (_, i) => z({ type: 'write', id: 'w', data: { n: i } }, t0 + 1 + i));
    expect(await pushWithin(h.unit, ctx, writes, 100_000)).toMatchObject({ applied: 400 });
    const record = await h.s.get('w');
    expect(record?.n).toBe(399);
    expect((record?.tags as string[]).length).toBe(100_000);
    await closeAll(h.s, writer);
  });

  it('GUAR-12 GUAR-3: on a host with a schema, 400 updates of the title of a record whose checked set holds 100,000 elements touch a bounded number of entries; one that breaks the title is still refused', async () => {
    const { IsOptional, IsString } = await import('class-validator');
    class Note { title?: string; tags?: string[] }
    IsString()(Note.prototype, 'title');
    IsOptional()(Note.prototype, 'tags');
    IsString({ each: true })(Note.prototype, 'tags');
    const { h, writer, ctx, op } = await setup({}, { schema: { version: 1, types: { Note } } });
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    expect(await push(h.unit, ctx, [op({ type: 'write', id: 'n', data: { $type: 'Note', title: 't' } }), op({ type: 'add', id: 'n', key: 'tags', value: big })])).toMatchObject({ applied: 2 });
    const sets = Array.from({ length: 400 }, (_, i) => op({ type: 'set', id: 'n', data: { title: i === 399 ? 399 : `t${i}` } }));
    // Before, each update was validated with the record merged in: its 100,000 tags read and checked, 0.36 s an update.
    expect(await pushWithin(h.unit, ctx, sets, 100_000)).toMatchObject({ applied: 399, skipped: 1 });
    expect((await h.s.get('n'))?.title).toBe('t398');
    await closeAll(h.s, writer);
  });

  it('RESET-1 GUAR-3: 400 writes, each stamped just past the oldest of 30,000 elements added one op each (dropping one), touch a bounded number of entries', async () => {
    const { h, writer, ctx } = await setup();
    const t0 = Date.now() - 600_000;
    const z = stream('z', t0);
    // Each element its own add, so each has its own stamp: the oldest goes with each write.
    const adds = Array.from({ length: 30_000 }, (_, i) => z({ type: 'add', id: 'p', key: 'tags', value: [`e${i}`] }, t0 + 1000 + i));
    expect(await push(h.unit, ctx, adds)).toMatchObject({ applied: 30_000 });
    // A stream's ts may go back (another clock): each write at the ts of the next element drops the one before it.
    const writes = Array.from({ length: 400 }, (_, i) => z({ type: 'write', id: 'p', data: { n: i } }, t0 + 1001 + i));
    // Before, each write walked and rebuilt the whole set (about 25 ms here; 81 ms at 100,000 elements).
    expect(await pushWithin(h.unit, ctx, writes, 30_000)).toMatchObject({ applied: 400 });
    const record = await h.s.get('p');
    expect(record?.n).toBe(399);
    expect((record?.tags as string[]).length).toBe(30_000 - 400);
    await closeAll(h.s, writer);
  });

  it('RESET-1 KIND-5 GUAR-3: 400 writes, each dropping the oldest tag of one element added 40,000 times, touch a bounded number of entries', async () => {
    const { h, writer, ctx } = await setup();
    const t0 = Date.now() - 600_000;
    const z = stream('z', t0);
    const adds = Array.from({ length: 40_000 }, (_, i) => z({ type: 'add', id: 'q', key: 'tags', value: ['same'] }, t0 + 1000 + i));
    expect(await push(h.unit, ctx, adds)).toMatchObject({ applied: 40_000 });
    const writes = Array.from({ length: 400 }, (_, i) => z({ type: 'write', id: 'q', data: { n: i } }, t0 + 1001 + i));
    // Before, each write filtered the element's 40,000 tags and rebuilt their set.
    expect(await pushWithin(h.unit, ctx, writes, 40_000)).toMatchObject({ applied: 400 });
    expect(await h.s.get('q')).toEqual({ n: 399, tags: ['same'] });
    await closeAll(h.s, writer);
  });

  it('KIND-2 GUAR-3: 400 one-field updates of a record of 50,000 fields touch a bounded number of entries', async () => {
    const { h, writer, ctx, op } = await setup();
    const data = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`f${i}`, i]));
    expect(await push(h.unit, ctx, [op({ type: 'write', id: 'w', data })])).toMatchObject({ applied: 1 });
    const sets = Array.from({ length: 400 }, (_, i) => op({ type: 'set', id: 'w', data: { [`f${i}`]: -i } }));
    expect(await pushWithin(h.unit, ctx, sets, 50_000)).toMatchObject({ applied: 400 });
    expect((await h.s.get('w'))?.f399).toBe(-399);
    await closeAll(h.s, writer);
  });

  it('SCOPE-12 SCOPE-14 GUAR-3: on a host that scopes records by a field, a token bound to one scope adds to a large set touching a bounded number of entries', async () => {
    const { h, writer, ctx, op } = await setup({ exactScopes: true }, { sync: { scope: typed } }, ['Doc']);
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    const first = [op({ type: 'write', id: 'd', data: { $type: 'Doc' } }, 'Doc'), op({ type: 'add', id: 'd', key: 'tags', value: big }, 'Doc')];
    expect(await push(h.unit, ctx, first)).toMatchObject({ applied: 2 });
    const adds = Array.from({ length: 400 }, (_, i) => op({ type: 'add', id: 'd', key: 'tags', value: [`x${i}`] }, 'Doc'));
    expect(await pushWithin(h.unit, ctx, adds, 100_000)).toMatchObject({ applied: 400, outOfScope: 0 });
    expect(internals(h.s).scopes.scopeOf('d')).toBe('Doc');
    await closeAll(h.s, writer);
  });

  it('SCOPE-12 GUAR-3: on a host scoping by a field (scopeByField), 100 ops on a record whose scope field is a set of 100,000 elements touch a bounded number of entries', async () => {
    const { h, writer, ctx, op } = await setup({ exactScopes: true }, { sync: { scope: scopeByField('$type') } });
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    // A set (or a counter) is no scope name: the record is global, whatever the set holds.
    expect(await push(h.unit, ctx, [op({ type: 'add', id: 's', key: '$type', value: big })])).toMatchObject({ applied: 1 });
    const ops = Array.from({ length: 100 }, (_, i) => op(i % 2 ? { type: 'add', id: 's', key: '$type', value: [`x${i}`] } : { type: 'set', id: 's', data: { n: i } }));
    // Before, each op's scope checks and rescope read the scope field whole, 100,000 elements each time: 400 such ops ran a 4 GB heap out of memory.
    expect(await pushWithin(h.unit, ctx, ops, 100_000)).toMatchObject({ applied: 100, outOfScope: 0 });
    expect(internals(h.s).scopes.scopeOf('s')).toBe('*');
    expect(((await h.s.get('s'))?.$type as string[]).length).toBe(100_050);
    await closeAll(h.s, writer);
  });

  it('CLK-2 GUAR-3: 200 updates stamped as the held value of a field (a tie each, the held value winning) cost their own size, not the held value\'s', async () => {
    const { h, writer, ctx } = await setup();
    const t0 = Date.now() - 60_000;
    const z = stream('z', t0);
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const long = 'z'.repeat(300_000);
    expect(await push(h.unit, ctx, [z({ type: 'set', id: 't', data: { o: wide, s: long } }, t0 + 1000)])).toMatchObject({ applied: 1 });
    // A stream's ts may stay put: each update ties the held stamp, and its value ('"a..."' before '"z..."' and '{...}') loses.
    const values = [(i: number) => ({ s: `a${i}` }), (i: number) => ({ o: `a${i}` }), (i: number) => ({ o: { a: i } })];
    const sets = Array.from({ length: 200 }, (_, i) => z({ type: 'set', id: 't', data: values[i % 3](i) }, t0 + 1000));
    let bytes = 0;
    const stringify = JSON.stringify;
    const spy = jest.spyOn(JSON, 'stringify').mockImplementation((...a: Parameters<typeof stringify>) => {
      const out = stringify(...a);
      bytes += out?.length ?? 0;
      return out;
    });
    try {
      // Before, each tie made the held value's JSON text (and an object's canonical text) anew, some 300 KB an update, and listed its keys.
      expect(await pushWithin(h.unit, ctx, sets, 20_000)).toMatchObject({ applied: 200 });
    } finally {
      spy.mockRestore();
    }
    expect(bytes).toBeLessThan(8 * 300_000);
    const record = await h.s.get('t');
    expect([String(record?.s).length, Object.keys(record?.o as object).length]).toEqual([300_000, 20_000]);
    await closeAll(h.s, writer);
  });

  it('GUAR-12 GUAR-3: on a host with a schema, 400 updates of a record whose type field is a set of 100,000 elements touch a bounded number of entries', async () => {
    const { IsString } = await import('class-validator');
    class Note { title?: string }
    IsString()(Note.prototype, 'title');
    const { h, writer, ctx, op } = await setup({}, { schema: { version: 1, types: { Note } } });
    const big = Array.from({ length: 100_000 }, (_, i) => `e${i}`);
    // A set is no type name: the record has no class, and its updates pass as they did.
    expect(await push(h.unit, ctx, [op({ type: 'add', id: 'y', key: '$type', value: big })])).toMatchObject({ applied: 1 });
    const sets = Array.from({ length: 400 }, (_, i) => op({ type: 'set', id: 'y', data: { title: i } }));
    // Before, each update read the type field whole to find the record's class: the set, 100,000 elements, each time.
    expect(await pushWithin(h.unit, ctx, sets, 100_000)).toMatchObject({ applied: 400 });
    expect((await h.s.get('y'))?.title).toBe(399);
    // One that names a type is judged as a whole record of it, as before: a title that is no string is refused.
    expect(await push(h.unit, ctx, [op({ type: 'set', id: 'y', data: { $type: 'Note', title: 1 } })])).toMatchObject({ applied: 0, skipped: 1 });
    await closeAll(h.s, writer);
  });
});

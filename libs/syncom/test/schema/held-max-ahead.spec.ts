import 'reflect-metadata';
import { internals } from '../../src/testing/internals';
import { open, type Storage } from '../../src';
import { buildNoteClass } from '../schema/fixtures';
import { FLAG_HELD } from '../../src/op';
import { createSchema } from '../../src/schema';
import { HeldStreams } from '../../src/storage/held-streams';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { reopen } from '../sync/scenario-helpers';

const URL = 'memory://h';
const Note = buildNoteClass();
const v1 = { version: 1, types: { Note } };
const v2 = { version: 2, types: { Note } };
const huge = { version: Number.MAX_SAFE_INTEGER, types: { Note } };

async function greet(d: Storage): Promise<void> {
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected && !d.sync.peers()[0].bootstrapping, [d]);
}

describe('GUAR-26: a version claimed past schema.maxAhead is not held for: one write with v = 2^53-1 no longer hides a record', () => {
  it('a node bootstrapping from the hub gets the record at once, and keeps it after upgrading', async () => {
    const net = new Net();
    const h = await hub({}, {}); // apps/hub: no schema
    net.units.set(URL, h.unit);
    const a = await dialer(net, { schema: v1, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await greet(a);
    const r = await a.insert({ $type: 'Note', title: 'orig', tags: [] });
    await until(async () => h.s.has(r), [h.s]);

    // A token holder: a node claiming schema version 2^53-1; it rewrites the record with the same content.
    const x = await dialer(net, { schema: huge, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await greet(x);
    await until(async () => x.has(r), [x]);
    await x.set(r, { $type: 'Note', title: 'orig', tags: [] });
    await until(() => (internals(h.s).committer.committed.get(r)?.v ?? 0) === Number.MAX_SAFE_INTEGER, [h.s]);

    // The honest owner keeps editing the record (field updates: meta.v stays 2^53-1 at the hub).
    await a.update(r, { title: 'edited by its owner' });
    await until(async () => (await h.s.get(r))?.title === 'edited by its owner', [h.s]);

    // A new honest node on the same schema as the owner.
    const b = await dialer(net, { schema: v1, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await greet(b);
    await internals(b).committer.idle();
    const info = b.sync.schemaInfo();
    // Version 2^53-1 is past maxAhead (1000): the state is taken as this node's version's, not held.
    expect({ has: await b.has(r), held: info?.held.count }).toEqual({ has: true, held: 0 });
    await b.close();
    const up = await reopen(b, { schema: v2 });
    expect(await up.get(r)).toMatchObject({ title: 'edited by its owner' });
    await closeAll(up, a, x, h.s);
  });

  it('the owner\'s later field updates land on the new node on the whole record, as at the hub', async () => {
    const net = new Net();
    const h = await hub({}, {});
    net.units.set(URL, h.unit);
    const a = await dialer(net, { schema: v1, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await greet(a);
    const r = await a.insert({ $type: 'Note', title: 'orig', tags: ['keep'] });
    await until(async () => h.s.has(r), [h.s]);
    const x = await dialer(net, { schema: huge, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await greet(x);
    await until(async () => x.has(r), [x]);
    await x.set(r, { $type: 'Note', title: 'orig', tags: ['keep'] });
    await until(() => (internals(h.s).committer.committed.get(r)?.v ?? 0) === Number.MAX_SAFE_INTEGER, [h.s]);
    const b = await dialer(net, { schema: v1, sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await greet(b);
    await a.update(r, { title: 'second edit' });
    await until(async () => (await b.get(r))?.title === 'second edit' && (await h.s.get(r))?.title === 'second edit', [b, h.s]);
    expect(await h.s.get(r)).toEqual({ $type: 'Note', title: 'second edit', tags: ['keep'] });
    expect(await b.get(r)).toEqual(await h.s.get(r));
    await closeAll(a, b, x, h.s);
  });
});

describe('GUAR-26: schema.maxAhead', () => {
  const op = (v: number, seq = 1) => ({ origin: 'o', seq, ts: 1, type: 'set' as const, id: 'r', data: { title: 'x' }, v });

  it('holds a version up to maxAhead past this node\'s, and takes one further ahead as this node\'s own, keeping its stream\'s order', () => {
    const held = new HeldStreams(1, 1000);
    expect(held.holds(op(1001))).toBe(true);
    expect(held.holds(op(1002))).toBe(false);
    expect(held.holds(op(Number.MAX_SAFE_INTEGER))).toBe(false);
    // Behind a held op of its stream, an op claiming too much waits with it, for that op's version.
    expect(held.note(op(5, 1))).toBe(true);
    expect(held.note(op(Number.MAX_SAFE_INTEGER, 2))).toBe(true);
    expect(held.waitsFor({ op: op(Number.MAX_SAFE_INTEGER, 2), flags: FLAG_HELD })).toBe(5);
  });

  it('Infinity holds any version; a bad maxAhead is refused at open', () => {
    expect(new HeldStreams(1, Infinity).holds(op(Number.MAX_SAFE_INTEGER))).toBe(true);
    for (const maxAhead of [-1, 1.5, NaN, '10']) {
      expect(() => createSchema({ version: 1, types: { Note }, maxAhead: maxAhead as number })).toThrow(/maxAhead must be/);
    }
  });
});

describe('GUAR-26: open({ schema: { maxAhead } })', () => {
  it('takes maxAhead as open()\'s schema option, and refuses a bad one there', async () => {
    for (const maxAhead of [5000, Infinity]) {
      const s = await open({ path: 'm', backend: 'memory', schema: { version: 1, types: { Note }, maxAhead } });
      await s.close();
    }
    await expect(open({ path: 'm', backend: 'memory', schema: { version: 1, types: { Note }, maxAhead: -1 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

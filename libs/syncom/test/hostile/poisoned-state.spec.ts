import { createMemoryBackend, open, type Storage } from '../../src';
import { isEntry, readEntry, type Entry, type Field } from '../../src/crdt';
import { tagCount, unionTags } from '../../src/crdt/tags';
import { checkHello } from '../../src/sync/protocol/hello';
import { inServed, servedScopes } from '../../src/sync/protocol/scopes';
import { internals } from '../../src/testing';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { craft, greet, push } from '../sync/scenario-helpers';
import { summed, unsummed } from '../../src/storage/record-sum';

const URL = 'memory://hub';
const DAY = 86_400_000;

/**
 * Elements a linear search (Array includes, indexOf, lastIndexOf) walks while
 * `fn` runs: a tag looked up by scanning a list of tags, once per tag, is the
 * quadratic cost; counted, not timed, so the bound is deterministic.
 */
function scanned<T>(fn: () => T): { value: T; scanned: number } {
  let n = 0;
  const spies = (['includes', 'indexOf', 'lastIndexOf'] as const).map((name) => {
    const real = Array.prototype[name] as (this: unknown[], ...a: unknown[]) => unknown;
    return jest.spyOn(Array.prototype, name).mockImplementation(function (this: unknown[], ...a: unknown[]) {
      n += this.length;
      return real.apply(this, a);
    } as never);
  });
  try {
    return { value: fn(), scanned: n };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

/** Every entry a storage would hand a snapshot, checked as a dialer checks them. */
function unreadableEntries(s: Storage): string[] {
  return [...internals(s).committer.committed.values()].filter((e) => !isEntry(JSON.parse(JSON.stringify(e)), e.id)).map((e) => e.id);
}

/**
 * State a token holder's ops leave in the host's records must stay state every
 * peer can read back: a snapshot page or record file holding one bad entry is
 * refused whole, so one op could stop every later bootstrap of its scope, and
 * lose the other records of its file at the next open.
 */
/** A 'require' hub, a peer greeted on it, and the codes of the hub's storage errors. */
async function greetedPeer() {
  const h = await hub({}, { sync: { signatures: 'require' } });
  const p = await node();
  const ctx = await greet(h.unit, p);
  const errors: string[] = [];
  h.s.on('error', (e) => errors.push(e.code));
  return { h, p, ctx, errors };
}

describe('hostile ops cannot leave state that peers or a restart refuse', () => {
  it('GUAR-3 KIND-6: a remove whose tags are not add tags is malformed: not logged, the page\'s other ops land', async () => {
    const { h, p, ctx, errors } = await greetedPeer();
    const answer = await push(h.unit, ctx, [
      craft(p, { type: 'write', id: 'honest', data: { x: 1 } }, '*', 1),
      craft(p, { type: 'remove', id: 'poison', key: 'tags', value: [['el', ['not a tag']]] }, '*', 2),
      craft(p, { type: 'remove', id: 'poison', key: 'tags', value: [['el', [`1:${'x'.repeat(129)}`]]] }, '*', 2),
    ]);
    expect(answer).toMatchObject({ applied: 1, malformed: 2 });
    expect(errors).toContain('OP_MALFORMED');
    expect(await h.s.get('poison')).toBeUndefined();
    expect(unreadableEntries(h.s)).toEqual([]);
    await closeAll(h.s, p);
  });

  it('GUAR-3: a remove naming a tag stamped more than maxSkew ahead is refused as SKEW, as an op stamped there is', async () => {
    const { h, p, ctx, errors } = await greetedPeer();
    const far = Date.now() + 3 * DAY;
    const answer = await push(h.unit, ctx, [
      craft(p, { type: 'remove', id: 'r', key: 'tags', value: [['el', [`${far}:${p.id}`]]] }, '*', 1),
      craft(p, { type: 'remove', id: 'r', key: 'tags', value: [['el', ['9007199254740991:x']]] }, '*', 1),
    ]);
    expect(answer).toMatchObject({ applied: 0, malformed: 2 });
    expect(errors).toEqual(['SKEW']);
    // A tag from the past is what a remove names: it lands.
    expect(await push(h.unit, ctx, [craft(p, { type: 'remove', id: 'r', key: 'tags', value: [['el', [`1:${p.id}`]]] }, '*', 1)])).toMatchObject({ applied: 1 });
    expect(unreadableEntries(h.s)).toEqual([]);
    await closeAll(h.s, p);
  });

  it('KIND-4: a counter slot whose incs sum past Number.MAX_VALUE holds there; its entry stays readable, and a new peer bootstraps it', async () => {
    const net = new Net();
    const h = await hub({}, { sync: { signatures: 'require' } });
    net.units.set(URL, h.unit);
    const p = await node();
    const ctx = await greet(h.unit, p);
    const incs = [1, 2].map((seq) => craft(p, { type: 'inc', id: 'n', key: 'n', value: 1.7e308 }, '*', seq));
    expect(await push(h.unit, ctx, [...incs, craft(p, { type: 'write', id: 'honest', data: { x: 1 } }, '*', 3)])).toMatchObject({ applied: 3 });
    expect(await h.s.get('n')).toEqual({ n: Number.MAX_VALUE });
    expect(unreadableEntries(h.s)).toEqual([]);
    const d = await dialer(net);
    await d.sync.addNode({ url: URL, token: 't' });
    await until(async () => (await d.get('honest')) !== undefined && (await d.get('n')) !== undefined, [h.s, d]);
    expect(await d.get('n')).toEqual({ n: Number.MAX_VALUE });
    // Two origins' slots summing past it read as Number.MAX_VALUE too, whatever the slots' order.
    const both: Entry = { id: 'x', latest: [2, 'b'], fields: { n: { k: 'c', by: { b: [1.7e308, 2], a: [1.7e308, 1] } } } };
    expect(readEntry(both)).toEqual({ n: Number.MAX_VALUE });
    await closeAll(h.s, p, d);
  });

  it('a record file with one entry no peer could read loses that entry alone at open (OP_UNREADABLE), not the file\'s other records', async () => {
    const backend = createMemoryBackend();
    const a = await open({ path: 'a', backend });
    await Promise.all(['one', 'two', 'three'].map((id) => a.set(id, { id })));
    await a.close();
    const files = (backend as unknown as { files(): Map<string, string> }).files();
    const name = [...files.keys()].find((f) => f.startsWith('records/') && (files.get(f) as string).includes('"two"')) as string;
    const list = JSON.parse(unsummed(files.get(name)) as string) as Entry[];
    expect(list.map((e) => e.id).sort()).toEqual(['one', 'three', 'two']);
    ((list.find((e) => e.id === 'two') as Entry).fields as Record<string, Field>).tags = { k: 's', el: { '"el"': { add: [], rem: ['not a tag'] } } };
    // Summed again, as a writer that made this entry would have: the file holds what it was given, and its entry is judged alone.
    await backend.write(name, summed(JSON.stringify(list)));
    const b = await open({ path: 'a', backend });
    const errors: { code: string; count?: number }[] = [];
    b.on('error', (e) => errors.push(e as never));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([expect.objectContaining({ code: 'OP_UNREADABLE', count: 1 })]);
    expect([await b.get('one'), await b.get('three')]).toEqual([{ id: 'one' }, { id: 'three' }]);
    await b.close();
  });

  it('GUAR-3 BOOT-10: a write carrying `from` is no bootstrap op: the node it names still receives it', async () => {
    const net = new Net();
    const h = await hub({}, { sync: { signatures: 'require' } });
    net.units.set(URL, h.unit);
    const victim = await dialer(net);
    await victim.sync.addNode({ url: URL, token: 't' });
    await until(() => victim.sync.peers()[0]?.subscribed === true, [h.s, victim]);
    const p = await node();
    const ctx = await greet(h.unit, p);
    expect(await push(h.unit, ctx, [craft(p, { type: 'set', id: 'doc', data: { text: 'for everyone' }, from: victim.id }, '*', 1)])).toMatchObject({ applied: 1 });
    await until(async () => (await victim.get('doc')) !== undefined, [h.s, victim]);
    expect(await victim.get('doc')).toEqual({ text: 'for everyone' });
    await closeAll(h.s, p, victim);
  });

  it('GUAR-3: merging and reading set elements with tens of thousands of tags scans no tag list per tag', async () => {
    const n = 100_000;
    const tags = Array.from({ length: n }, (_, i) => `${i + 1}:${'o'.repeat(8)}`).sort();
    const half = tags.filter((_, i) => i % 2 === 0);
    const entry: Entry = { id: 'r', latest: [1, 'o'], fields: { s: { k: 's', el: { '"el"': { add: tags, rem: tags } } } } };
    // Quadratic, each of these took minutes: 100,000 x 100,000 string comparisons, a scan of the tags per tag.
    const union = scanned(() => unionTags(half, tags));
    const read = scanned(() => readEntry(entry));
    expect(tagCount(union.value)).toBe(n);
    expect(read.value).toEqual({ s: [] });
    expect(union.scanned + read.scanned).toBeLessThan(n);
  });

  it('PROTO-4 SCOPE-20: a hello naming more than 1,024 scopes is refused (BAD_HELLO); a feed serving 1,024 looks each scope up', async () => {
    const names = (k: number) => Array.from({ length: k }, (_, i) => `s${i}`);
    const hello = (scopes: string[]) => ({ node: 'n', vector: {}, epoch: 'e', schema: null, scopes });
    expect(checkHello(hello(names(1024))).scopes).toHaveLength(1024);
    expect(() => checkHello(hello(names(1025)))).toThrow(expect.objectContaining({ code: 'BAD_HELLO' }));
    const granted = names(1024);
    const served = servedScopes(names(1024).reverse(), granted);
    expect(served).toHaveLength(1024);
    expect([inServed('s1023', served), inServed('other', served), inServed('*', served), inServed(undefined, served)]).toEqual([true, false, true, true]);
    expect(inServed('x', [...granted, '*'])).toBe(true);
  });
});


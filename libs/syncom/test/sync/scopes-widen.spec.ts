import { open, type Storage } from '../../src';
import { closeAll, hub, Net, node, seeded, until } from './helpers';

// A scoped feed's cursor moves past the other scopes' ops without a page. Kept when addNode()
// added a scope, the feed resumed from it served only what came after: the records of that scope
// written before never came, and its next op was a gap that broke the feed.
describe('REG-2: addNode() again with more scopes', () => {
  const scope = (_id: string, data: Record<string, unknown>) => (data.$type as string) ?? '*';

  it('brings the records of the added scope written before, and what comes after', async () => {
    const net = new Net();
    const h = await hub({}, { sync: { scope } });
    net.units.set('memory://h', h.unit);
    const d = await node({ sync: { connect: net.connect, antiEntropyInterval: 0, scope } });
    const doc = await h.s.insert({ $type: 'Doc', n: 1 });
    const note = await h.s.insert({ $type: 'Note', n: 1 });
    await d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['Doc'] });
    await d.sync.synced('memory://h', { timeout: 10_000 });
    expect({ doc: await d.has(doc), note: await d.has(note) }).toEqual({ doc: true, note: false });
    await d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['Doc', 'Note'] });
    const note2 = await h.s.insert({ $type: 'Note', n: 2 });
    await until(async () => (await d.has(note)) && (await d.has(note2)), [d, h.s]);
    await d.sync.synced('memory://h', { timeout: 10_000 });
    expect(d.sync.peers()[0]).toMatchObject({ stuck: false, lastError: null });
    await closeAll(d, h.s);
  });

  it('keeps the cursor when the scopes narrow or stay covered (no bootstrap)', async () => {
    const net = new Net();
    const h = await hub({}, { sync: { scope } });
    net.units.set('memory://h', h.unit);
    const d = await node({ sync: { connect: net.connect, antiEntropyInterval: 0, scope } });
    await h.s.insert({ $type: 'Doc', n: 1 });
    await d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['*'] });
    await d.sync.synced('memory://h', { timeout: 10_000 });
    const cursor = d.sync.listNodes()[0].cursor;
    expect(cursor).not.toBeNull();
    await d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['Doc'] });
    expect(d.sync.listNodes()[0].cursor).toBe(cursor);
    await closeAll(d, h.s);
  });

  it('keeps the cursor dropped when a page was being committed as addNode() hung up the feed', async () => {
    const net = new Net();
    const h = await hub({}, { sync: { scope } });
    net.units.set('memory://h', h.unit);
    // A dialer whose log writes can be held at a gate.
    const inner = await seeded();
    let gate: Promise<void> | undefined;
    let hit: () => void = () => undefined;
    const hitP = new Promise<void>((r) => (hit = r));
    const gated = <K extends 'write' | 'append'>(k: K) => async (path: string, ...rest: unknown[]) => {
      if (gate && path.startsWith('log/')) { hit(); await gate; }
      return (inner[k] as (...a: unknown[]) => Promise<void>)(path, ...rest);
    };
    const backend = {
      read: (p: string) => inner.read(p), write: gated('write'), overwrite: inner.overwrite.bind(inner), append: gated('append'),
      remove: inner.remove.bind(inner), list: inner.list.bind(inner), mkdir: inner.mkdir.bind(inner), exists: inner.exists.bind(inner),
    };
    const d: Storage = await open({ path: 'd', backend: backend as never, sync: { connect: net.connect, antiEntropyInterval: 0, scope } });
    const note = await h.s.insert({ $type: 'Note', n: 1 });
    await h.s.insert({ $type: 'Doc', n: 1 });
    await d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['Doc'] });
    await d.sync.synced('memory://h', { timeout: 10_000 });
    let release: () => void = () => undefined;
    gate = new Promise<void>((r) => (release = r));
    await h.s.insert({ $type: 'Doc', n: 2 }); // a page to d, whose log append waits at the gate
    await hitP;
    const adding = d.sync.addNode({ url: 'memory://h', token: 't', scopes: ['Doc', 'Note'] });
    await new Promise((r) => setImmediate(r));
    gate = undefined;
    release();
    await adding;
    const cursorAfterAdd = d.sync.listNodes()[0].cursor;
    await h.s.insert({ $type: 'Note', n: 2 });
    // With the fix intact the cursor is null after addNode and the feed bootstraps, bringing `note`.
    let got = false;
    await until(async () => (got = await d.has(note)), [d, h.s]).catch(() => undefined);
    const peer = d.sync.peers()[0];
    await closeAll(d, h.s);
    expect({ cursorAfterAdd, got, stuck: peer.stuck }).toEqual({ cursorAfterAdd: null, got: true, stuck: false });
  });
});

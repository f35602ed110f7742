import { closeAll, hub, Net, node, until } from './helpers';

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
});

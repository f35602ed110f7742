import { internals } from '../../src/testing/internals';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeAll, dialer, hub, Net, node, until } from './helpers';
import { nodeFileOf, record, remoteFiles, reopen, waitFor, WatchedNet } from './scenario-helpers';

const URL = 'memory://hub';

describe('the registry', () => {
  it('REG-1 REG-5 LIFE-12: addNode registers a node (scopes default to [*]); listNodes shows it; node events name the action', async () => {
    const s = await node();
    const nodes = record(s, 'node');
    await s.sync.addNode({ url: URL, token: 'secret' });
    await s.sync.addNode({ url: 'memory://docs', scopes: ['Doc', 'Doc'] });
    const [first, second] = s.sync.listNodes();
    expect(first).toEqual({
      url: URL, token: 'secret', scopes: ['*'], enabled: true, lastSync: null, cursor: null, acked: {},
      remote: { id: null, epoch: null, schema: null },
    });
    expect(second).toMatchObject({ url: 'memory://docs', scopes: ['Doc'], enabled: true });
    expect(second).not.toHaveProperty('token');
    await s.sync.enableNode(URL, false);
    await s.sync.enableNode(URL, true);
    await s.sync.removeNode('memory://docs');
    expect(nodes).toEqual([
      { url: URL, action: 'add' }, { url: 'memory://docs', action: 'add' },
      { url: URL, action: 'disable' }, { url: URL, action: 'enable' }, { url: 'memory://docs', action: 'remove' },
    ]);
    await expect(s.sync.addNode({ url: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.sync.addNode({ url: URL, scopes: [] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.sync.enableNode('memory://nobody', true)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.sync.removeNode('memory://nobody')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await closeAll(s);
  });

  it('REG-1 REG-5: addNode of a registered url updates its token and scopes in place: the running dialer greets with them and saves them', async () => {
    const net = new Net();
    const hellos: { scopes: string[]; token?: string }[] = [];
    const h = await hub({ authorize: (_c, hello) => { hellos.push({ scopes: hello.scopes, token: hello.token }); return true; } });
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    await d.sync.addNode({ url: URL, token: 'one' });
    await h.s.insert({ n: 1 });
    await waitFor(() => d.sync.listNodes()[0].cursor === internals(h.s).log.eventId(), [d]);
    const cursor = d.sync.listNodes()[0].cursor;
    await d.sync.addNode({ url: URL, token: 'two', scopes: ['Doc'] });
    await waitFor(() => hellos.length === 2, [d, h.s]);
    expect(hellos).toEqual([{ scopes: ['*'], token: 'one' }, { scopes: ['Doc'], token: 'two' }]);
    await h.s.insert({ n: 2 });
    await waitFor(() => d.sync.listNodes()[0].cursor === internals(h.s).log.eventId(), [d]);
    expect(d.sync.listNodes()[0]).toMatchObject({ token: 'two', scopes: ['Doc'], enabled: true });
    expect(d.sync.listNodes()[0].cursor).not.toBe(cursor);
    expect(nodeFileOf(d, URL)).toMatchObject({ token: 'two', scopes: ['Doc'], cursor: internals(h.s).log.eventId() });
    await closeAll(d, h.s);
  });

  it('REG-2 REG-5: with connect given, addNode({ url, token }) is all it takes for writes to flow both ways; listNodes fills in the remote', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    await d.sync.addNode({ url: URL, token: 't' });
    const mine = await d.insert({ from: 'dialer' });
    const theirs = await h.s.insert({ from: 'hub' });
    // A record joined from the snapshot is readable before the bootstrap ends and sets the cursor.
    await until(async () => (await h.s.has(mine)) && (await d.has(theirs)) && d.sync.listNodes()[0].cursor !== null, [d, h.s]);
    const [n] = d.sync.listNodes();
    expect(n.remote).toEqual({ id: h.s.id, epoch: internals(h.s).log.epoch, schema: null });
    expect(n.cursor).toMatch(new RegExp(`^${internals(h.s).log.epoch}\\.\\d+$`));
    expect(typeof n.lastSync).toBe('number');
    expect(n.acked[d.id]).toBe(1);
    await closeAll(d, h.s);
  });

  it('REG-3: enableNode(url, false) keeps the node but closes its link at once and stops dialing; true dials it again', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const peers = record(d, 'peer');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => peers.some((p) => p.connected), [d]);
    await d.sync.enableNode(URL, false);
    expect(net.links[0].connected).toBe(false);
    expect(peers.at(-1)).toMatchObject({ url: URL, connected: false });
    expect(d.sync.listNodes()[0].enabled).toBe(false);
    expect(d.sync.peers()).toEqual([]);
    expect(h.s.sync.hosted()).toEqual([]);
    const offline = await h.s.insert({ while: 'disabled' });
    await d.sync.stop();
    await d.sync.start();
    expect(net.links).toHaveLength(1);
    expect(await d.has(offline)).toBe(false);
    await d.sync.enableNode(URL, true);
    expect(net.links).toHaveLength(2);
    await until(() => d.has(offline), [d]);
    expect(d.sync.listNodes()[0].enabled).toBe(true);
    await closeAll(d, h.s);
  });

  it('REG-3 REG-4: addNode or enableNode racing removeNode of the same url leave one state: registered and dialed, or neither (no dialer of a removed node, no file that registers it again)', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    for (const [i, race] of [
      () => [d.sync.removeNode(URL), d.sync.addNode({ url: URL, token: 't' })],
      () => [d.sync.enableNode(URL, true), d.sync.removeNode(URL)],
      () => [d.sync.enableNode(URL, false), d.sync.removeNode(URL), d.sync.enableNode(URL, true).catch(() => undefined)],
    ].entries()) {
      await d.sync.addNode({ url: URL, token: 't' });
      await Promise.all(race());
      await d.sync.flush();
      const rec = d.sync.listNodes()[0];
      expect([i, d.sync.peers().length, nodeFileOf(d, URL) !== undefined]).toEqual([i, rec?.enabled ? 1 : 0, rec !== undefined]);
    }
    await closeAll(d, h.s);
  });

  it('REG-4: removeNode unregisters the node, deletes its file and closes its link; it is not dialed again', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const peers = record(d, 'peer');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => peers.some((p) => p.connected), [d]);
    expect(nodeFileOf(d, URL)).toBeDefined();
    await d.sync.removeNode(URL);
    expect(nodeFileOf(d, URL)).toBeUndefined();
    expect(remoteFiles(d)).toEqual([]);
    expect(d.sync.listNodes()).toEqual([]);
    expect(d.sync.peers()).toEqual([]);
    expect(net.links[0].connected).toBe(false);
    await d.sync.stop();
    await d.sync.start();
    expect(net.links).toHaveLength(1);
    // One owner per storage path: the restart opens it once the first process closed it.
    await d.close();
    const again = await reopen(d, { sync: { connect: net.connect } });
    expect(again.sync.listNodes()).toEqual([]);
    expect(net.links).toHaveLength(1);
    await closeAll(again, h.s);
  });

  it('REG-6 REG-9: each node is a file under remote/ named encodeURIComponent(url); the url is opaque, whatever it holds', async () => {
    const weird = 'memory://höst a/b?c=d&e#f %';
    const net = new Net();
    const h = await hub();
    net.units.set(weird, h.unit);
    const seen: string[] = [];
    const d = await dialer(net, { sync: { connect: (n) => { seen.push(n.url); return net.connect(n); } } });
    await d.sync.addNode({ url: weird, token: 't' });
    await d.sync.addNode({ url: 'plain' , scopes: ['Doc'] });
    expect(remoteFiles(d)).toEqual([`remote/${encodeURIComponent(weird)}.json`, 'remote/plain.json'].sort());
    const boots = record(d, 'bootstrap');
    await until(() => boots.length === 1, [d]);
    expect(seen).toContain(weird);
    expect(nodeFileOf(d, weird)).toMatchObject({ url: weird, token: 't', scopes: ['*'], enabled: true, remote: { id: h.s.id } });
    expect(nodeFileOf(d, 'plain')).toMatchObject({ url: 'plain', scopes: ['Doc'] });
    await closeAll(d, h.s);
  });

  it('REG-7 PROTO-11: the file keeps the cursor and the remote identity, so a restart resumes from the saved cursor instead of bootstrapping', async () => {
    const net = new WatchedNet();
    const h = await hub();
    net.units.set(URL, h.unit);
    await h.s.insert({ n: 1 });
    const d = await dialer(net);
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1, [d]);
    await h.s.insert({ n: 2 });
    await waitFor(() => d.sync.listNodes()[0].cursor === internals(h.s).log.eventId(), [d]);
    await d.close();
    const saved = nodeFileOf(d, URL);
    expect(saved?.cursor).toBe(internals(h.s).log.eventId());
    expect(saved?.remote).toEqual({ id: h.s.id, epoch: internals(h.s).log.epoch, schema: null });
    const missed = await h.s.insert({ n: 3 });
    const again = await reopen(d, { sync: { connect: net.connect } });
    const boots2 = record(again, 'bootstrap');
    await until(() => again.has(missed), [again]);
    expect(boots2).toEqual([]);
    expect(net.watches[1].subscribes).toEqual([saved?.cursor]);
    expect(net.watches[1].calls).not.toContain('snapshot');
    await waitFor(() => again.sync.listNodes()[0].cursor === internals(h.s).log.eventId(), [again]);
    await closeAll(again, h.s);
  });

  it('PROTO-11: the changes cursor is remembered per registered node', async () => {
    const net = new Net();
    const a = await hub();
    const b = await hub();
    net.units.set('memory://a', a.unit);
    net.units.set('memory://b', b.unit);
    const d = await dialer(net);
    await d.sync.addNode({ url: 'memory://a', token: 't' });
    await d.sync.addNode({ url: 'memory://b', token: 't' });
    const ia = await a.s.insert({ at: 'a' });
    const ib = await b.s.insert({ at: 'b' });
    await until(async () => (await d.has(ia)) && (await d.has(ib)), [d]);
    await until(() => d.sync.listNodes().every((n) => n.cursor !== null && !n.cursor.endsWith('.0')), [d]);
    // Each cursor is a position in that node's own log, at or past the page that carried its record
    // (ops the feed steps over without a page, like the dialer's own, may lie beyond it).
    for (const [url, host, id] of [['memory://a', a.s, ia], ['memory://b', b.s, ib]] as const) {
      const cursor = d.sync.listNodes().find((n) => n.url === url)!.cursor!;
      const at = internals(host).log.cursor(cursor);
      expect(at.ok).toBe(true);
      const pos = internals(host).log.read(0).find((e) => e.op.id === id)!.pos;
      expect(at.ok && at.pos).toBeGreaterThanOrEqual(pos);
    }
    await closeAll(d, a.s, b.s);
  });

  it('REG-9 REG-6: any url string works on any backend — one naming a temp file, or one too long for a file name; text that is not well formed (a lone surrogate) is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'syncom-reg-'));
    try {
      const urls = ['wss://host/x.tmp-1', `wss://host/api?token=${'é'.repeat(300)}`, 'a', 'A'];
      const s = await node({ path: dir, backend: 'fs' });
      for (const url of urls) await s.sync.addNode({ url, token: 't' });
      await s.close();
      const names = await readdir(join(dir, 'remote'));
      expect(names).toHaveLength(4);
      expect(names.every((n) => Buffer.byteLength(n) <= 255 && !n.includes('.tmp-'))).toBe(true);
      expect(names).toContain(`${encodeURIComponent('a')}.json`);
      const again = await node({ path: dir, backend: 'fs' });
      expect(again.sync.listNodes().map((n) => n.url).sort()).toEqual([...urls].sort());
      await again.sync.removeNode(urls[1]);
      expect(await readdir(join(dir, 'remote'))).toHaveLength(3);
      // Text with no percent-encoding (a lone UTF-16 surrogate) has no file name: refused, not kept until a reopen loses it.
      for (const url of ['wss://host/\ud800', 'wss://host/\udc00x']) {
        await expect(again.sync.addNode({ url })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      }
      expect(again.sync.listNodes()).toHaveLength(3);
      await again.sync.addNode({ url: 'wss://host/\ud83d\ude00' });
      expect(again.sync.listNodes()).toHaveLength(4);
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
